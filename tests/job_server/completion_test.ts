import assert from "node:assert/strict";
import { getLogger } from "@logtape/logtape";
import { completePortJob, completeShipmentJob, type JobServer } from "../../lib/job_server/completion.ts";
import { JobServerClient } from "../../lib/job_server/client.ts";
import { closedPort, TestServer } from "../../fixtures/sandbox/http_server.ts";
import { CapturedLog } from "../helpers/captured_log.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

// A real local job server: records each call (upload: file name, type, content; complete: JSON body)
// and answers each upload by file name from `uploadAnswers` (default: success with a /srv path).

interface Call {
  action: string;
  fileName?: string;
  type?: string;
  content?: string;
  json?: unknown;
}

type UploadAnswer = "ok" | "fail" | "500";

/** The job server's two routes on the shared test server; every call recorded, uploads answered by name. */
class StubServer {
  readonly calls: Call[] = [];
  uploadAnswers: Record<string, UploadAnswer> = {};
  completeOk = true;
  readonly #server = TestServer.start().fallback(async (req) => {
    const action = new URL(req.url).pathname.split("/").pop() ?? "";
    if (action === "upload-log") {
      const file = (await req.formData()).get("logFile");
      assert.ok(file instanceof File);
      const content = await file.text();
      this.calls.push({ action, fileName: file.name, type: file.type, content });
      const answer = this.uploadAnswers[file.name] ?? "ok";
      if (answer === "500") return Response.json({ success: false, error: "boom" }, { status: 500 });
      if (answer === "fail") return Response.json({ success: false, error: "rejected" });
      return Response.json({ success: true, logFilePath: `/srv/${file.name}` });
    }
    this.calls.push({ action, json: await req.json() });
    return Response.json(this.completeOk ? { success: true } : { success: false, error: "nope" });
  });

  get baseUrl(): string {
    return this.#server.url("");
  }

  reset(): void {
    this.calls.length = 0;
    this.uploadAnswers = {};
    this.completeOk = true;
  }

  close(): Promise<void> {
    return this.#server.close();
  }
}

const log = new CapturedLog();

function clientFor(baseUrl: string, jobId = "J1"): JobServerClient {
  return new JobServerClient({
    baseUrl,
    jobId,
    jobData: {
      userId: "u",
      serviceId: "s",
      serviceName: "S",
      inputFileName: "in.csv",
      inputFilePath: "in.csv",
      creditsUsed: "0.0",
    },
    timeoutMs: AMPLE_MS,
    logger: getLogger(["test", "job-server"]),
  });
}

function closedPortUrl(): string {
  return `http://127.0.0.1:${closedPort()}`;
}

const CSV =
  "container_number,invoice_no,status,error,timestamp\r\nC1,I1,success,,2024-01-01T00:00:00.000\r\n";

Deno.test("completeShipmentJob (Job A)", async (t) => {
  await log.start();
  const server = new StubServer();
  const client = clientFor(server.baseUrl);
  const args = { logFileName: "shipment_tracking_J1.log", outputDirectory: "/out", successfulCount: 2 };
  try {
    await t.step("log uploaded: complete with its path", async () => {
      server.reset();
      log.clear();
      await completeShipmentJob(client, { ...args, log: "row 1 ok\n" });
      assert.deepEqual(server.calls, [
        {
          action: "upload-log",
          fileName: "shipment_tracking_J1.log",
          type: "text/plain",
          content: "row 1 ok\n",
        },
        {
          action: "complete",
          json: {
            success: true,
            resultFiles: ["/srv/shipment_tracking_J1.log"],
            outputFiles: [],
            outputDirectory: "/out",
            successfulCount: 2,
          },
        },
      ]);
      assert.deepEqual(log.lines("warning", "error"), []);
    });

    await t.step("log may be a function, read at upload time", async () => {
      server.reset();
      let reads = 0;
      await completeShipmentJob(client, {
        ...args,
        log: () => {
          reads++;
          return "from function\n";
        },
      });
      assert.equal(reads, 1);
      assert.equal(server.calls[0]?.content, "from function\n");
      assert.equal(server.calls.length, 2);
    });

    for (const answer of ["500", "fail"] as const) {
      await t.step(`log upload fails (${answer}): no complete, failure logged`, async () => {
        server.reset();
        log.clear();
        server.uploadAnswers = { "shipment_tracking_J1.log": answer };
        await completeShipmentJob(client, { ...args, log: "x\n" });
        assert.deepEqual(server.calls.map((c) => c.action), ["upload-log"]);
        const lines = log.lines("warning", "error");
        assert.equal(lines.length, 2);
        assert.match(
          lines[0]!,
          answer === "500" ? /failed: HTTP 500 \(boom\)$/ : /success=false \(rejected\)$/,
        );
        assert.equal(lines[1], "Completion not reported: the log was not uploaded");
      });
    }

    await t.step("empty log: nothing uploaded, no complete", async () => {
      server.reset();
      await completeShipmentJob(client, { ...args, log: "" });
      assert.deepEqual(server.calls, []);
    });

    await t.step("complete answered success=false: logged, no throw", async () => {
      server.reset();
      log.clear();
      server.completeOk = false;
      await completeShipmentJob(client, { ...args, log: "x\n" });
      assert.deepEqual(server.calls.map((c) => c.action), ["upload-log", "complete"]);
      assert.match(
        log.lines("warning", "error")[0]!,
        /^Completion report \(job J1\) to .* failed: .*success=false \(nope\)$/,
      );
    });
  } finally {
    await server.close();
  }

  await t.step("server unreachable: resolves, failure logged", async () => {
    log.clear();
    await completeShipmentJob(clientFor(closedPortUrl()), { ...args, log: "x\n" });
    assert.match(log.lines("warning", "error")[0]!, /failed: request failed: .*refused/i);
  });

  await log.stop();
});

Deno.test("completePortJob (Job B)", async (t) => {
  await log.start();
  const server = new StubServer();
  const client = clientFor(server.baseUrl);
  const args = {
    logFileName: "port_tracking_J1.log",
    resultsCsvFileName: "port_tracking_results_J1.csv",
    outputDirectory: "/out",
    successfulCount: 1,
  };
  const completeBody = (resultFiles: string[]) => ({
    success: true,
    resultFiles,
    outputFiles: [],
    outputDirectory: "/out",
    successfulCount: 1,
  });
  try {
    await t.step(
      "both uploaded: CSV first, then the log (which includes the CSV upload line), complete with the CSV path",
      async () => {
        server.reset();
        log.clear();
        getLogger(["test", "job"]).info("row 1 ok");
        await completePortJob(client, { ...args, resultsCsv: CSV, log: () => log.text() });
        assert.deepEqual(server.calls, [
          { action: "upload-log", fileName: "port_tracking_results_J1.csv", type: "text/csv", content: CSV },
          {
            action: "upload-log",
            fileName: "port_tracking_J1.log",
            type: "text/plain",
            content: "row 1 ok\nUploaded port_tracking_results_J1.csv → /srv/port_tracking_results_J1.csv\n",
          },
          { action: "complete", json: completeBody(["/srv/port_tracking_results_J1.csv"]) },
        ]);
      },
    );

    await t.step("only the log uploaded: complete with the log path", async () => {
      server.reset();
      server.uploadAnswers = { "port_tracking_results_J1.csv": "500" };
      await completePortJob(client, { ...args, resultsCsv: CSV, log: () => "log\n" });
      assert.deepEqual(server.calls.map((c) => c.fileName ?? c.action), [
        "port_tracking_results_J1.csv",
        "port_tracking_J1.log",
        "complete",
      ]);
      assert.deepEqual(server.calls[2]?.json, completeBody(["/srv/port_tracking_J1.log"]));
    });

    await t.step("only the CSV uploaded: complete with the CSV path", async () => {
      server.reset();
      server.uploadAnswers = { "port_tracking_J1.log": "fail" };
      await completePortJob(client, { ...args, resultsCsv: CSV, log: () => "log\n" });
      assert.deepEqual(server.calls[2]?.json, completeBody(["/srv/port_tracking_results_J1.csv"]));
    });

    await t.step("both uploads fail: complete still called, with an empty list", async () => {
      server.reset();
      log.clear();
      server.uploadAnswers = { "port_tracking_results_J1.csv": "fail", "port_tracking_J1.log": "500" };
      await completePortJob(client, { ...args, resultsCsv: CSV, log: () => "log\n" });
      assert.deepEqual(server.calls.map((c) => c.action), ["upload-log", "upload-log", "complete"]);
      assert.deepEqual(server.calls[2]?.json, completeBody([]));
      const lines = log.lines("warning", "error");
      assert.equal(lines.length, 2);
      assert.match(
        lines[0]!,
        /^Upload of port_tracking_results_J1\.csv \(job J1\) .* failed: .*\(rejected\)$/,
      );
      assert.match(lines[1]!, /^Upload of port_tracking_J1\.log \(job J1\) .* failed: HTTP 500 \(boom\)$/);
    });

    await t.step("no results CSV built: only the log, complete with its path", async () => {
      server.reset();
      await completePortJob(client, { ...args, resultsCsv: undefined, log: () => "log\n" });
      assert.deepEqual(server.calls.map((c) => c.fileName ?? c.action), ["port_tracking_J1.log", "complete"]);
      assert.deepEqual(server.calls[1]?.json, completeBody(["/srv/port_tracking_J1.log"]));
    });

    await t.step("no CSV and an empty log: no upload, complete with an empty list", async () => {
      server.reset();
      await completePortJob(client, { ...args, resultsCsv: undefined, log: () => "" });
      assert.deepEqual(server.calls, [{ action: "complete", json: completeBody([]) }]);
    });
  } finally {
    await server.close();
  }

  await t.step("server unreachable: every call fails, resolves, each failure logged", async () => {
    log.clear();
    await completePortJob(clientFor(closedPortUrl()), { ...args, resultsCsv: CSV, log: () => "log\n" });
    const lines = log.lines("warning", "error");
    assert.equal(lines.length, 3);
    assert.ok(lines[0]!.startsWith("Upload of port_tracking_results_J1.csv"));
    assert.ok(lines[1]!.startsWith("Upload of port_tracking_J1.log"));
    assert.ok(lines[2]!.startsWith("Completion report (job J1)"));
  });

  await t.step("a throwing client (a bug) does not abort the job: logged at ERROR", async () => {
    log.clear();
    const broken: JobServer = {
      logger: getLogger(["test", "job-server"]),
      uploadFile: () => Promise.reject(new Error("bug {in} upload")),
      complete: () => Promise.resolve(true),
    };
    await completePortJob(broken, { ...args, resultsCsv: CSV, log: () => "log\n" });
    await completeShipmentJob(broken, { ...args, log: "log\n" });
    const errors = log.lines("error");
    assert.deepEqual(errors, [
      "Job-server completion sequence failed unexpectedly: bug {in} upload",
      "Job-server completion sequence failed unexpectedly: bug {in} upload",
    ]);
  });

  await log.stop();
});
