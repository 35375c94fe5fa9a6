import assert from "node:assert/strict";
import { getLogger } from "@logtape/logtape";
import { type CompletionReport, JobServerClient } from "../../lib/job_server/client.ts";
import { formatCredits, type JobData, jobDataFor } from "../../lib/job_server/job_data.ts";
import { closedPort, TestServer } from "../../fixtures/sandbox/http_server.ts";
import { CapturedLog } from "../helpers/captured_log.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

// A real local job server that records every request; each step sets how it answers.

interface RecordedFile {
  name: string;
  fileName: string;
  type: string;
  content: string;
}

interface Recorded {
  method: string;
  /** Raw (still percent-encoded) path, to check the job id is one encoded segment. */
  path: string;
  contentType: string;
  /** Multipart text fields in body order. */
  fields: [string, string][];
  files: RecordedFile[];
  /** Raw body, to check the part order. */
  raw: string;
  json?: unknown;
}

type Answer = (rec: Recorded, wait: () => Promise<void>) => Response | Promise<Response>;

/** The job server on the shared test server: every request recorded with its body, answered by `answer`. */
class StubServer {
  readonly requests: Recorded[] = [];
  answer: Answer = () => Response.json({ success: true, logFilePath: "/srv/logs/file" });
  readonly #server = TestServer.start().fallback(async (req, closing) => {
    const raw = await req.clone().text();
    const rec: Recorded = {
      method: req.method,
      path: new URL(req.url).pathname,
      contentType: req.headers.get("content-type") ?? "",
      fields: [],
      files: [],
      raw,
    };
    if (rec.contentType.startsWith("multipart/form-data")) {
      for (const [name, value] of await req.formData()) {
        if (typeof value === "string") rec.fields.push([name, value]);
        else rec.files.push({ name, fileName: value.name, type: value.type, content: await value.text() });
      }
    } else if (rec.contentType.startsWith("application/json")) {
      rec.json = JSON.parse(raw);
    }
    this.requests.push(rec);
    // "Slow" answers wait here until the server closes, so closing is prompt. (Not on req.signal:
    // Deno.serve's legacy abort-on-success behaviour prints a deprecation notice when it is used.)
    const wait = () =>
      new Promise<void>((resolve) => {
        if (closing.aborted) resolve();
        else closing.addEventListener("abort", () => resolve(), { once: true });
      });
    return await this.answer(rec, wait);
  });

  get baseUrl(): string {
    return this.#server.url("");
  }

  close(): Promise<void> {
    return this.#server.close();
  }
}

/** A URL on which nothing listens. */
function closedPortUrl(): string {
  return `http://127.0.0.1:${closedPort()}`;
}

const log = new CapturedLog();

/** The least completion report: no result files, successfulCount left out. */
const MINIMAL_REPORT: CompletionReport = {
  success: true,
  resultFiles: [],
  outputFiles: [],
  outputDirectory: "/o",
};

const JOB_DATA: JobData = {
  userId: "user-7",
  serviceId: "port-tracking",
  serviceName: "Port Container Location",
  inputFileName: "containers.csv",
  inputFilePath: "/data/in/containers.csv",
  creditsUsed: "2.5",
};

function client(baseUrl: string, extra: { jobId?: string; timeoutMs?: number; signal?: AbortSignal } = {}) {
  return new JobServerClient({
    baseUrl,
    jobId: extra.jobId ?? "a/b c",
    jobData: JOB_DATA,
    // The local server answers at once; the steps about the deadline give a short one to an answer that never comes.
    timeoutMs: extra.timeoutMs ?? AMPLE_MS,
    logger: getLogger(["test", "job-server"]),
    ...(extra.signal === undefined ? {} : { signal: extra.signal }),
  });
}

Deno.test("JobServerClient.uploadFile", async (t) => {
  await log.start();
  const server = new StubServer();
  try {
    await t.step(
      "2xx with success and logFilePath: multipart request, path returned, INFO line",
      async () => {
        log.clear();
        server.requests.length = 0;
        server.answer = () => Response.json({ success: true, logFilePath: "/srv/logs/port_tracking_J1.log" });
        // Trailing slashes on the base URL are removed, however many there are.
        const path = await client(`${server.baseUrl}//`).uploadFile(
          "port_tracking_J1.log",
          "line 1\nline 2 ✓\n",
          "text/plain",
        );
        assert.equal(path, "/srv/logs/port_tracking_J1.log");
        assert.equal(server.requests.length, 1);
        const req = server.requests[0]!;
        assert.equal(req.method, "POST");
        assert.equal(req.path, "/api/local-exe/jobs/a%2Fb%20c/upload-log");
        assert.match(req.contentType, /^multipart\/form-data; boundary=/);
        assert.deepEqual(req.fields, [
          ["userId", "user-7"],
          ["serviceId", "port-tracking"],
          ["serviceName", "Port Container Location"],
          ["inputFileName", "containers.csv"],
          ["inputFilePath", "/data/in/containers.csv"],
          ["creditsUsed", "2.5"],
        ]);
        assert.deepEqual(req.files, [{
          name: "logFile",
          fileName: "port_tracking_J1.log",
          type: "text/plain",
          content: "line 1\nline 2 ✓\n",
        }]);
        // Text fields precede the file so streaming parsers see them in their file handler.
        assert.ok(req.raw.indexOf('name="creditsUsed"') < req.raw.indexOf('name="logFile"'));
        assert.deepEqual(log.lines("info"), [
          "Uploaded port_tracking_J1.log → /srv/logs/port_tracking_J1.log",
        ]);
        assert.deepEqual(log.lines("warning"), []);
      },
    );

    await t.step("results CSV goes as text/csv in the same part", async () => {
      server.requests.length = 0;
      server.answer = () => Response.json({ success: true, logFilePath: "/srv/r.csv" });
      const csv =
        "container_number,invoice_no,status,error,timestamp\r\nC1,I1,success,,2024-01-01T00:00:00.000\r\n";
      assert.equal(await client(server.baseUrl).uploadFile("r.csv", csv, "text/csv"), "/srv/r.csv");
      assert.deepEqual(server.requests[0]!.files, [{
        name: "logFile",
        fileName: "r.csv",
        type: "text/csv",
        content: csv,
      }]);
    });

    const failures: {
      name: string;
      answer: Answer;
      reason: string | RegExp;
    }[] = [
      {
        name: "success false with its error text",
        answer: () => Response.json({ success: false, error: "disk full" }),
        reason: "HTTP 200: server answered success=false (disk full)",
      },
      {
        name: "success missing",
        answer: () => Response.json({ logFilePath: "/srv/x" }),
        reason: "HTTP 200: server answered success=null",
      },
      {
        name: "missing logFilePath",
        answer: () => Response.json({ success: true }),
        reason: "HTTP 200: success but no logFilePath in the answer",
      },
      {
        name: "empty logFilePath",
        answer: () => Response.json({ success: true, logFilePath: "" }),
        reason: "HTTP 200: success but no logFilePath in the answer",
      },
      {
        name: "HTTP 500 with JSON error text",
        answer: () => Response.json({ success: false, error: "boom" }, { status: 500 }),
        reason: "HTTP 500 (boom)",
      },
      {
        name: "HTTP 502 with an HTML page (excerpt, one line)",
        answer: () => new Response("<html>\n<body>Bad gateway</body>\n</html>", { status: 502 }),
        reason: "HTTP 502 (<html> <body>Bad gateway</body> </html>)",
      },
      {
        name: "HTTP 404 with an empty body",
        answer: () => new Response(null, { status: 404 }),
        reason: "HTTP 404",
      },
      {
        name: "2xx with invalid JSON",
        answer: () => new Response("ok, stored", { status: 200 }),
        reason: "HTTP 200: answer is not valid JSON: ok, stored",
      },
      {
        name: "2xx with JSON that is not an object",
        answer: () => Response.json([true]),
        reason: "HTTP 200: answer is not a JSON object: [true]",
      },
      {
        name: "server error text with braces stays literal",
        answer: () => Response.json({ success: false, error: "bad {field} }{" }, { status: 400 }),
        reason: "HTTP 400 (bad {field} }{)",
      },
    ];
    for (const failure of failures) {
      await t.step(`${failure.name}: undefined and one WARNING line`, async () => {
        log.clear();
        server.requests.length = 0;
        server.answer = failure.answer;
        const url = `${server.baseUrl}/api/local-exe/jobs/a%2Fb%20c/upload-log`;
        assert.equal(await client(server.baseUrl).uploadFile("x.log", "text", "text/plain"), undefined);
        assert.equal(server.requests.length, 1);
        assert.deepEqual(log.lines("info"), []);
        assert.deepEqual(log.lines("warning"), [
          `Upload of x.log (job a/b c) to ${url} failed: ${failure.reason}`,
        ]);
        assert.equal(log.records[0]!.properties["jobId"], "a/b c");
      });
    }

    await t.step("slower than the timeout: undefined at timeoutMs", async () => {
      log.clear();
      server.answer = async (_rec, wait) => {
        await wait();
        return Response.json({ success: true, logFilePath: "/too/late" });
      };
      const started = performance.now();
      assert.equal(
        await client(server.baseUrl, { timeoutMs: 200 }).uploadFile("x.log", "t", "text/plain"),
        undefined,
      );
      const elapsed = performance.now() - started;
      // Not before the deadline; the line below names the deadline that ended the call, the 200 ms given.
      assert.ok(elapsed >= 150, `took ${elapsed} ms`);
      assert.equal(log.lines("warning").length, 1);
      assert.match(
        log.lines("warning")[0]!,
        /^Upload of x\.log \(job a\/b c\) to .* failed: timed out after 200 ms$/,
      );
    });

    await t.step("caller signal aborts the call", async () => {
      log.clear();
      server.answer = async (_rec, wait) => {
        await wait();
        return Response.json({ success: true, logFilePath: "/too/late" });
      };
      const controller = new AbortController();
      const pending = client(server.baseUrl, { signal: controller.signal }).uploadFile(
        "x.log",
        "t",
        "text/plain",
      );
      setTimeout(() => controller.abort(), 50);
      assert.equal(await pending, undefined);
      assert.match(log.lines("warning")[0]!, /failed: cancelled$/);
    });

    await t.step("job ids that a URL would resolve away are refused without a request", async () => {
      for (const jobId of ["", ".", ".."]) {
        log.clear();
        server.requests.length = 0;
        assert.equal(
          await client(server.baseUrl, { jobId }).uploadFile("x.log", "t", "text/plain"),
          undefined,
        );
        assert.equal(server.requests.length, 0);
        assert.match(log.lines("warning")[0]!, /cannot be used as a URL path segment$/);
      }
    });
  } finally {
    await server.close();
  }

  await t.step("connection refused: undefined and a WARNING line with the transport error", async () => {
    log.clear();
    const base = closedPortUrl();
    assert.equal(await client(base, { jobId: "J1" }).uploadFile("x.log", "t", "text/plain"), undefined);
    const lines = log.lines("warning");
    assert.equal(lines.length, 1);
    assert.ok(
      lines[0]!.startsWith(
        `Upload of x.log (job J1) to ${base}/api/local-exe/jobs/J1/upload-log failed: request failed: `,
      ),
      lines[0],
    );
    assert.match(lines[0]!, /refused/i);
  });

  await log.stop();
});

Deno.test("JobServerClient.complete", async (t) => {
  await log.start();
  const server = new StubServer();
  try {
    await t.step("2xx with success: JSON body, path, true, INFO line", async () => {
      log.clear();
      server.requests.length = 0;
      server.answer = () => Response.json({ success: true });
      const ok = await client(`${server.baseUrl}/`).complete({
        success: true,
        resultFiles: ["/srv/logs/port_tracking_results_J1.csv"],
        outputFiles: [],
        outputDirectory: "/data/out",
        successfulCount: 3,
      });
      assert.equal(ok, true);
      assert.equal(server.requests.length, 1);
      const req = server.requests[0]!;
      assert.equal(req.method, "POST");
      assert.equal(req.path, "/api/local-exe/jobs/a%2Fb%20c/complete");
      assert.equal(req.contentType, "application/json");
      assert.deepEqual(req.json, {
        success: true,
        resultFiles: ["/srv/logs/port_tracking_results_J1.csv"],
        outputFiles: [],
        outputDirectory: "/data/out",
        successfulCount: 3,
      });
      assert.deepEqual(log.lines("info"), ["Completion reported for job a/b c (1 result file)"]);
    });

    await t.step(
      "successfulCount is omitted when not given; extra caller properties are not sent",
      async () => {
        server.requests.length = 0;
        server.answer = () => Response.json({ success: true });
        const report = { ...MINIMAL_REPORT, extra: 1 };
        assert.equal(await client(server.baseUrl).complete(report), true);
        assert.deepEqual(server.requests[0]!.json, MINIMAL_REPORT);
      },
    );

    const failures: { name: string; answer: Answer; reason: string }[] = [
      {
        name: "success false with error",
        answer: () => Response.json({ success: false, error: "unknown job" }),
        reason: "HTTP 200: server answered success=false (unknown job)",
      },
      {
        name: "HTTP 500",
        answer: () => Response.json({ error: "boom" }, { status: 500 }),
        reason: "HTTP 500 (boom)",
      },
      {
        name: "invalid JSON",
        answer: () => new Response("", { status: 200 }),
        reason: "HTTP 200: answer is not valid JSON: (empty body)",
      },
    ];
    for (const failure of failures) {
      await t.step(`${failure.name}: false and one WARNING line`, async () => {
        log.clear();
        server.answer = failure.answer;
        const url = `${server.baseUrl}/api/local-exe/jobs/a%2Fb%20c/complete`;
        const ok = await client(server.baseUrl).complete(MINIMAL_REPORT);
        assert.equal(ok, false);
        assert.deepEqual(log.lines("info"), []);
        assert.deepEqual(log.lines("warning"), [
          `Completion report (job a/b c) to ${url} failed: ${failure.reason}`,
        ]);
      });
    }

    await t.step("slower than the timeout: false", async () => {
      log.clear();
      server.answer = async (_rec, wait) => {
        await wait();
        return Response.json({ success: true });
      };
      const ok = await client(server.baseUrl, { timeoutMs: 200 }).complete(MINIMAL_REPORT);
      assert.equal(ok, false);
      assert.match(
        log.lines("warning")[0]!,
        /^Completion report \(job a\/b c\) to .* failed: timed out after 200 ms$/,
      );
    });
  } finally {
    await server.close();
  }

  await t.step("connection refused: false", async () => {
    log.clear();
    const ok = await client(closedPortUrl()).complete(MINIMAL_REPORT);
    assert.equal(ok, false);
    assert.match(
      log.lines("warning")[0]!,
      /^Completion report \(job a\/b c\) to .* failed: request failed: .*refused/i,
    );
  });

  await log.stop();
});

Deno.test("jobDataFor", async (t) => {
  const base = { userId: "u1", serviceId: "svc", serviceName: "Service" };

  await t.step("base name and path of the input file", () => {
    assert.deepEqual(jobDataFor({ ...base, inputFile: "/data/in/rows.csv", creditsUsed: 0 }), {
      userId: "u1",
      serviceId: "svc",
      serviceName: "Service",
      inputFileName: "rows.csv",
      inputFilePath: "/data/in/rows.csv",
      creditsUsed: "0.0",
    });
    assert.equal(jobDataFor({ ...base, inputFile: "rows.csv", creditsUsed: 0 }).inputFileName, "rows.csv");
    assert.equal(
      jobDataFor({ ...base, inputFile: "C:\\jobs\\in\\rows.csv", creditsUsed: 0 }).inputFileName,
      "rows.csv",
    );
  });

  await t.step("no input file: input.csv and an empty path", () => {
    const data = jobDataFor({ ...base, inputFile: "", creditsUsed: 0 });
    assert.equal(data.inputFileName, "input.csv");
    assert.equal(data.inputFilePath, "");
    assert.equal(jobDataFor({ ...base, inputFile: "dir/", creditsUsed: 0 }).inputFileName, "input.csv");
  });

  await t.step("creditsUsed is written like Python's str(float)", () => {
    assert.equal(formatCredits(0), "0.0");
    assert.equal(formatCredits(3), "3.0");
    assert.equal(formatCredits(2.5), "2.5");
    assert.equal(formatCredits(0.1), "0.1");
    assert.equal(formatCredits(1234567.25), "1234567.25");
    assert.equal(formatCredits(-0), "-0.0");
    assert.equal(jobDataFor({ ...base, inputFile: "a.csv", creditsUsed: 12 }).creditsUsed, "12.0");
  });
});
