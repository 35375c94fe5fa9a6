/**
 * Job B end to end: the real entry point as a subprocess, under the compiled permission flags, against
 * the sandbox over real HTTP, with real Chromium; PDFs read back as text.
 */
import assert from "node:assert/strict";
import { type Sandbox, startSandbox, STYLESHEET_MARKER } from "../../fixtures/sandbox.ts";
import { HOLDING_MARKERS, phasesReached } from "../../fixtures/sandbox/holding_pages.ts";
import { TestServer } from "../../fixtures/sandbox/http_server.ts";
import { CONTAINER_LOCATION_PATH } from "../../lib/port/report_client.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { browserProcessesLeft, browserProcessesUnder } from "../helpers/processes.ts";
import { portFlags } from "../helpers/site_flags.ts";

// Time bounds: a wait for a job's log line or for a page the sandbox holds is AMPLE_MS, a hang guard (a job
// reaches its first rows 2–4 s after it starts, longer on a loaded host). Where the test stops a job mid-run,
// a row whose report the sandbox holds keeps the job there, so the stop comes before the rows run out on any
// host.

const FAST = ["--pause-scale=0"];

function portArgs(sandbox: Sandbox, csv: string, out: string, jobId: string, ...rest: string[]): string[] {
  return [
    csv,
    out,
    jobId,
    sandbox.apiBaseUrl,
    "user-7",
    "2.5",
    ...portFlags(sandbox),
    ...rest,
  ];
}

const words = (text: string) => text.replace(/\s+/g, " ");

Deno.test("Job B captures every row in order, uploads the results CSV and the log, and reports completion", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv(
    "containers.CSV",
    '\uFEFFcontainer_number,invoice_no\r\nMSCU1234567,INV-1\r\n"TGHU 765/4321","INV, 2"\r\n,INV-skip\r\nCMAU3141592,INV-3\r\n',
  );
  const run = await runJobProcess("port", portArgs(sandbox, csv, dir.out, "job/B 1"), { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);

  assert.deepEqual(await dir.pdfs(), [
    "001 INV-1 MSCU1234567.pdf",
    "002 INV, 2 TGHU 765_4321.pdf",
    "003 INV-3 CMAU3141592.pdf",
  ]);
  const first = words(await pdfText(`${dir.out}/001 INV-1 MSCU1234567.pdf`));
  assert.match(first, /Container Location Report/);
  assert.match(first, /MSCU1234567/);
  // The saved page's root-relative stylesheet loaded from the portal (the job added a <base href>).
  assert.ok(first.includes(STYLESHEET_MARKER), first);
  assert.match(words(await pdfText(`${dir.out}/002 INV, 2 TGHU 765_4321.pdf`)), /TGHU 765\/4321/);

  // The portal got the form with the spec's headers, with the session cookie kept across its redirect.
  const posts = sandbox.requests.port.filter((r) => r.method === "POST");
  assert.deepEqual(posts.map((r) => r.form?.containerLocation), [
    "MSCU1234567",
    "TGHU 765/4321",
    "CMAU3141592",
  ]);
  const post = posts[0]!;
  assert.equal(post.headers["content-type"], "application/x-www-form-urlencoded");
  assert.match(post.headers["user-agent"] ?? "", /Mozilla\/5\.0 .*Chrome\//);
  assert.equal(post.headers["referer"], `${sandbox.portUrl}/`);
  assert.equal(post.headers["origin"], new URL(sandbox.portUrl).origin);
  assert.match(post.headers["accept-language"] ?? "", /^en-US/);
  assert.match(post.headers["accept"] ?? "", /text\/html/);

  const [csvUpload, logUpload, complete, ...more] = sandbox.requests.jobServer;
  assert.equal(more.length, 0);
  assert.equal(csvUpload?.path, "/api/local-exe/jobs/job%2FB%201/upload-log");
  assert.equal(csvUpload?.jobId, "job/B 1");
  assert.deepEqual(csvUpload?.form, {
    userId: "user-7",
    serviceId: "port-container-location",
    serviceName: "Port Container Location",
    inputFileName: "containers.CSV",
    inputFilePath: csv,
    creditsUsed: "2.5",
  });
  const csvFile = csvUpload?.files?.logFile;
  assert.equal(csvFile?.name, "port_tracking_results_job_B 1.csv");
  assert.match(csvFile?.type ?? "", /^text\/csv/);
  const lines = csvFile!.text.trimEnd().split("\n");
  assert.equal(lines[0], "container_number,invoice_no,status,error,timestamp");
  assert.equal(lines.length, 4);
  assert.match(lines[1]!, /^MSCU1234567,INV-1,success,,\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
  assert.match(lines[2]!, /^TGHU 765\/4321,"INV, 2",success,,/);

  const log = logUpload?.files?.logFile;
  assert.equal(log?.name, "port_tracking_job_B 1.log");
  assert.match(log?.type ?? "", /^text\/plain/);
  assert.match(log!.text, /Finished: 3 row\(s\), 3 succeeded, 0 failed/);
  assert.match(log!.text, /Uploaded port_tracking_results_job_B 1\.csv/);
  assert.ok(
    run.stdout.startsWith(log!.text.split("\n")[0]!),
    "the log written to stdout is the one uploaded",
  );

  assert.equal(complete?.path, "/api/local-exe/jobs/job%2FB%201/complete");
  assert.deepEqual(complete?.json, {
    success: true,
    resultFiles: ["/srv/jobs/job/B 1/port_tracking_results_job_B 1.csv"],
    outputFiles: [],
    outputDirectory: dir.out,
    successfulCount: 3,
  });

  assert.deepEqual(
    await dir.tmpEntries(),
    [],
    "temporary HTML files and the browser's run folder are removed",
  );
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
});

Deno.test("Job B records failing rows (HTTP 500, short body, timeout) and goes on", async () => {
  // Two runs side by side, since no one HTTP limit tells a prompt answer from a late one on every host (a 1 s
  // limit once timed out the HTTP 500 row at a load of 20–26): the answered rows under a limit only a hang
  // runs out, and the timeout row alone against a portal that holds its answer until the test ends, under a
  // 1 s limit it always runs out.
  await using sandbox = await startSandbox();
  await using silentPortal = TestServer.start().hang(`/pcs${CONTAINER_LOCATION_PATH}`);
  await using dir = await TestFolder.create();
  const answered = await dir.csv(
    "c.csv",
    "container_number,invoice_no\nA-ERR500-1,I1\nB-SHORT-2,I2\nMSCU0000003,I3\n",
  );
  const unanswered = await dir.csv("t.csv", "container_number,invoice_no\nC-SILENT-1,I1\n");
  const [run, timedOut] = await Promise.all([
    runJobProcess("port", portArgs(sandbox, answered, dir.out, "J2", `--http-timeout=${AMPLE_S}`), {
      env: dir.env,
    }),
    runJobProcess("port", [
      unanswered,
      `${dir.path}/t`,
      "J2T",
      sandbox.apiBaseUrl,
      "user-7",
      "2.5",
      ...portFlags(sandbox, { "port-url": silentPortal.url("/pcs"), "http-timeout": "1" }),
    ], { env: dir.env }),
  ]);
  const resultsOf = (jobId: string) =>
    sandbox.requests.jobServer.find((r) => r.jobId === jobId && r.files?.logFile?.name.endsWith(".csv"))!
      .files!.logFile!.text.trimEnd().split("\n").slice(1);
  const completionOf = (jobId: string) =>
    sandbox.requests.jobServer.find((r) => r.jobId === jobId && r.path.endsWith("/complete"))?.json;

  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(await dir.pdfs(), ["003 I3 MSCU0000003.pdf"]);
  const results = resultsOf("J2");
  assert.equal(results.length, 3);
  assert.match(results[0]!, /^A-ERR500-1,I1,error,the port portal answered HTTP 500/);
  assert.match(
    results[1]!,
    /^B-SHORT-2,I2,error,the port portal answered only \d+ characters \(at least 100 expected\)/,
  );
  assert.match(results[2]!, /^MSCU0000003,I3,success,,/);
  assert.match(
    run.stdout,
    /Row 1\/3 \(container A-ERR500-1, invoice I1\): failed: the port portal answered HTTP 500/,
  );
  assert.deepEqual(completionOf("J2"), {
    success: true,
    resultFiles: ["/srv/jobs/J2/port_tracking_results_J2.csv"],
    outputFiles: [],
    outputDirectory: dir.out,
    successfulCount: 1,
  });

  // The 1 s limit is every outbound request's, the job server's uploads too, which a loaded host can run out
  // (seen at a load of 20): the row's result is read from the log, the run above covers the uploads.
  assert.equal(timedOut.code, 0, timedOut.stderr);
  assert.match(
    timedOut.stdout,
    /ERROR Row 1\/1 \(container C-SILENT-1, invoice I1\): failed: the port portal did not answer within 1 s/,
  );
  assert.match(timedOut.stdout, /Finished: 1 row\(s\), 0 succeeded, 1 failed/);
  assert.deepEqual(await dir.tmpEntries(), []);
});

Deno.test("Job B exit codes and the job-server rules", async (t) => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const good = await dir.csv("good.csv", "container_number,invoice_no\nMSCU1111111,I1\nMSCU2222222,I2\n");

  await t.step("fewer than three arguments: usage on stderr, exit 1", async () => {
    const run = await runJobProcess("port", [good, dir.out]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: .*\nusage: port-tracking INPUT\.csv OUTPUT_DIR JOB_ID/);
    assert.equal(run.stdout, "");
  });

  await t.step("input file missing: exit 1, no browser", async () => {
    const run = await runJobProcess("port", [`${dir.path}/nope.csv`, dir.out, "J"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /input file .*nope\.csv does not exist/);
    assert.deepEqual(await dir.tmpEntries(), []);
  });

  await t.step("no container numbers: 'No container numbers found.', exit 1", async () => {
    const empty = await dir.csv("empty.csv", "container_number,invoice_no\n,I1\n");
    const run = await runJobProcess("port", [empty, dir.out, "J", `--port-url=${sandbox.portUrl}`, ...FAST], {
      env: dir.env,
    });
    assert.equal(run.code, 1);
    assert.match(run.stdout, /ERROR No container numbers found\.\n/);
    assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
  });

  await t.step("missing column: the message names it; exit 1", async () => {
    const wrong = await dir.csv("wrong.csv", "container,invoice_no\nX,Y\n");
    const run = await runJobProcess("port", [wrong, dir.out, "J", ...FAST], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stdout, /missing required column\(s\): container_number/);
  });

  await t.step("browser cannot start: exit 1 with the reason", async () => {
    const run = await runJobProcess("port", [
      good,
      dir.out,
      "J",
      "--chrome-path=/nonexistent/chrome",
      ...FAST,
    ], {
      env: dir.env,
    });
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      /Cannot start the browser: Chrome path \/nonexistent\/chrome is not an executable file/,
    );
  });

  await t.step(
    "a --chrome-path outside the permission set's run list is refused, even through setpriv",
    async () => {
      // A script that would leave a mark if it ran: setpriv (in the list) could start it on the job's behalf.
      const mark = `${dir.path}/ran`;
      const fake = `${dir.path}/fake-chrome.sh`;
      await Deno.writeTextFile(fake, `#!/bin/sh\ntouch ${mark}\n`);
      await Deno.chmod(fake, 0o755);
      const run = await runJobProcess("port", [good, dir.out, "J", `--chrome-path=${fake}`, ...FAST], {
        env: dir.env,
      });
      assert.equal(run.code, 1);
      assert.match(run.stdout, /is not a browser this job may run: add it to permissions\.job\.run/);
      await assert.rejects(Deno.stat(mark), Deno.errors.NotFound);
    },
  );

  await t.step("no job-server client without api_base_url or user_id", async () => {
    const before = sandbox.requests.jobServer.length;
    const noUser = await runJobProcess("port", [
      good,
      `${dir.path}/o1`,
      "J",
      sandbox.apiBaseUrl,
      `--port-url=${sandbox.portUrl}`,
      ...FAST,
    ], { env: dir.env });
    assert.equal(noUser.code, 0, noUser.stdout);
    const noApi = await runJobProcess("port", [
      good,
      `${dir.path}/o2`,
      "J",
      `--port-url=${sandbox.portUrl}`,
      ...FAST,
    ], {
      env: dir.env,
    });
    assert.equal(noApi.code, 0);
    assert.equal(sandbox.requests.jobServer.length, before);
  });

  for (const mode of ["error-500", "success-false", "missing-path", "invalid-json"] as const) {
    await t.step(`job server ${mode}: logged, completion still sent with [], exit 0`, async () => {
      sandbox.jobServer.mode = mode;
      const before = sandbox.requests.jobServer.length;
      const run = await runJobProcess("port", portArgs(sandbox, good, `${dir.path}/o-${mode}`, `J-${mode}`), {
        env: dir.env,
      });
      sandbox.jobServer.mode = "ok";
      assert.equal(run.code, 0);
      const calls = sandbox.requests.jobServer.slice(before);
      assert.deepEqual(calls.map((c) => c.path.split("/").pop()), ["upload-log", "upload-log", "complete"]);
      assert.deepEqual((calls[2]?.json as { resultFiles: string[] }).resultFiles, []);
      assert.match(run.stdout, /WARNING Upload of port_tracking_results_J-[a-z0-9-]+\.csv .* failed/);
    });
  }
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
});

Deno.test("Job B stops with exit 130 on the stop file or a signal, closes the browser, uploads nothing", async (t) => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  // Row 2's report holds its load (its script is a request the sandbox answers when `holdUntil` says), so
  // that a job stopped after row 1 is still in the middle of its 40 rows, however quick the host.
  const rows = Array.from({ length: 40 }, (_, i) => `MSCU${String(i).padStart(7, "0")},INV-${i}`);
  rows[1] = `MSCU-${HOLDING_MARKERS.load}-1,INV-1`;
  const csv = await dir.csv("many.csv", ["container_number,invoice_no", ...rows].join("\n"));
  const heldLoads = () => phasesReached(sandbox.requests.port).filter((phase) => phase === "load").length;

  await t.step("stop file present before the first row", async () => {
    const out = `${dir.path}/stop-before`;
    await Deno.mkdir(out);
    await Deno.writeTextFile(`${out}/stop_S1.txt`, "");
    const run = await runJobProcess("port", portArgs(sandbox, csv, out, "S1"), { env: dir.env });
    assert.equal(run.code, 130);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(out))).map((e) => e.name), ["stop_S1.txt"]);
    assert.equal(sandbox.requests.jobServer.length, 0);
  });

  await t.step("stop file created mid-run", async () => {
    const out = `${dir.path}/stop-mid`;
    // Row 2's load waits for the stop file, so the job sees it before row 3 whatever the host's speed.
    const stopFileThere = Promise.withResolvers<void>();
    sandbox.holdUntil = () => stopFileThere.promise;
    const loadsBefore = heldLoads();
    const run = await runJobProcess("port", portArgs(sandbox, csv, out, "S2", `--wait-timeout=${AMPLE_S}`), {
      env: dir.env,
      whileRunning: async () => {
        await waitUntil(() => heldLoads() > loadsBefore, AMPLE_MS, "row 2's load");
        await Deno.writeTextFile(`${out}/stop_S2.txt`, "");
        stopFileThere.resolve();
      },
    });
    delete sandbox.holdUntil;
    assert.equal(run.code, 130);
    const pdfs = (await Array.fromAsync(Deno.readDir(out))).filter((e) => e.name.endsWith(".pdf")).length;
    assert.equal(pdfs, 2, `${pdfs} PDFs`);
    assert.match(run.stdout, /Stop requested before row 3 of 40; stopping\./);
    assert.equal(sandbox.requests.jobServer.length, 0);
  });

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    await t.step(`${signal} mid-run`, async () => {
      const out = `${dir.path}/${signal}`;
      // Row 2's load is held until the step ends: the signal comes during row 1's pause or row 2's load.
      const stepOver = Promise.withResolvers<void>();
      sandbox.holdUntil = () => stepOver.promise;
      const run = await runJobProcess("port", portArgs(sandbox, csv, out, "S3", "--pause-scale=0.2"), {
        env: dir.env,
        whileRunning: async (child, stdout) => {
          await waitUntil(() => /Row 1\/40 .*saved/.test(stdout()), AMPLE_MS, "row 1");
          assert.ok((await browserProcessesUnder(dir.tmp)).length > 0, "the browser runs");
          child.kill(signal);
        },
      }).finally(() => {
        stepOver.resolve();
        delete sandbox.holdUntil;
      });
      assert.equal(run.code, 130, run.stdout);
      assert.equal(sandbox.requests.jobServer.length, 0);
      assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
      assert.deepEqual(await dir.tmpEntries(), []);
    });
  }
});
