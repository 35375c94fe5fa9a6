/**
 * Big batches end to end (`--resume`, `--retries`, `--fail-on-row-errors`): the real entry points as
 * subprocesses against the sandbox over real HTTP, with real Chromium; PDFs read back as text.
 *
 * Time bounds. What the test expects to happen (a log line it waits for, a page that loads) has `AMPLE_MS` or
 * `AMPLE_S`, which only a hang runs out; a stop comes while the sandbox holds the row it must follow. A try
 * that must fail by its element wait (a page without its frame) runs that wait out whatever its bound, so it is
 * short, and what that short wait could cut (the detail page of the row tried again) is checked in a run of
 * its own. The 429's `Retry-After` is bounded from below only.
 */
import assert from "node:assert/strict";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { eachAtOnce, pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const words = (text: string) => text.replace(/\s+/g, " ");

function portArgs(sandbox: Sandbox, csv: string, out: string, jobId: string, ...rest: string[]): string[] {
  return [csv, out, jobId, sandbox.apiBaseUrl, "u1", ...portFlags(sandbox), ...rest];
}

/** The form POSTs the port portal received, as container numbers in order. */
const postsOf = (sandbox: Sandbox) =>
  sandbox.requests.port.filter((r) => r.method === "POST").map((r) => r.form?.containerLocation ?? "");

/** The results CSV the last completion uploaded, as lines without the header. */
function uploadedResults(sandbox: Sandbox): string[] {
  const upload = sandbox.requests.jobServer.findLast((r) => r.files?.logFile?.name.endsWith(".csv"));
  assert.ok(upload, "a results CSV was uploaded");
  return upload.files!.logFile!.text.trimEnd().split("\n").slice(1);
}

Deno.test("--resume after a stop at row 4 of 6 requests only rows 5 and 6; every PDF exists once", async () => {
  // Row 4's report loads only once the stop file is there (its script is held until then), so the file is
  // there before row 5, however slow the host.
  await using sandbox = await startSandbox();
  const stopped4 = Promise.withResolvers<void>();
  sandbox.holdUntil = () => stopped4.promise;
  await using dir = await TestFolder.create();
  const containers = [
    "MSCU0000001",
    "MSCU0000002",
    "MSCU0000003",
    "HOLDLOAD-0000004",
    "MSCU0000005",
    "MSCU0000006",
  ];
  const csv = await dir.csv(
    "six.csv",
    ["container_number,invoice_no", ...containers.map((c) => `${c},I`)].join("\n"),
  );
  const stopFile = `${dir.out}/stop_R1.txt`;

  const stopped = await runJobProcess(
    "port",
    portArgs(sandbox, csv, dir.out, "R1", `--wait-timeout=${AMPLE_S}`),
    {
      env: dir.env,
      whileRunning: async (_child, stdout) => {
        await waitUntil(() => /Row 4\/6 .*processing/.test(stdout()), AMPLE_MS, "row 4");
        await Deno.writeTextFile(stopFile, "");
        stopped4.resolve();
      },
    },
  );
  assert.equal(stopped.code, 130, stopped.stdout + stopped.stderr);
  assert.match(stopped.stdout, /Stop requested before row 5 of 6/);
  assert.equal((await dir.pdfs()).length, 4);
  assert.equal(sandbox.requests.jobServer.length, 0, "a stopped run uploads nothing");
  assert.deepEqual(postsOf(sandbox), containers.slice(0, 4));

  await Deno.remove(stopFile);
  // Under --fail-on-row-errors too: no row failed, so exit 0.
  const resumed = await runJobProcess(
    "port",
    portArgs(sandbox, csv, dir.out, "R1", "--resume", "--fail-on-row-errors"),
    {
      env: dir.env,
    },
  );
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.deepEqual(postsOf(sandbox), containers, "the resumed run requested rows 5 and 6 only");
  for (let i = 1; i <= 4; i++) {
    assert.match(resumed.stdout, new RegExp(`Row ${i}/6 \\(.*\\): already present as 00${i} I \\S+\\.pdf`));
  }
  const pdfs = await dir.pdfs();
  assert.deepEqual(pdfs, containers.map((c, i) => `00${i + 1} I ${c}.pdf`), "every PDF exactly once");
  for (const [i, container] of containers.entries()) {
    assert.ok(words(await pdfText(`${dir.out}/${pdfs[i]}`)).includes(container), container);
  }
  const results = uploadedResults(sandbox);
  assert.equal(results.length, 6);
  for (const [i, line] of results.entries()) assert.ok(line.startsWith(`${containers[i]},I,success,,`), line);
  const complete = sandbox.requests.jobServer.findLast((r) => r.path.endsWith("/complete"));
  assert.equal((complete?.json as { successfulCount?: number }).successfulCount, 6);
});

Deno.test("--resume captures a truncated and a deleted PDF again and leaves the complete ones alone", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const containers = ["MSCU0000011", "MSCU0000012", "MSCU0000013"];
  const csv = await dir.csv(
    "three.csv",
    ["container_number,invoice_no", ...containers.map((c) => `${c},I`)].join("\n"),
  );
  const first = await runJobProcess("port", portArgs(sandbox, csv, dir.out, "R2"), { env: dir.env });
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const [complete, truncated, deleted] = (await dir.pdfs()).map((name) => `${dir.out}/${name}`) as [
    string,
    string,
    string,
  ];
  const bytes = await Deno.readFile(truncated);
  await Deno.writeFile(truncated, bytes.subarray(0, bytes.length - 200));
  await Deno.remove(deleted);
  const before = (await Deno.stat(complete)).mtime!.getTime();

  const resumed = await runJobProcess("port", portArgs(sandbox, csv, dir.out, "R2", "--resume"), {
    env: dir.env,
  });
  assert.equal(resumed.code, 0, resumed.stdout + resumed.stderr);
  assert.deepEqual(postsOf(sandbox), [...containers, "MSCU0000012", "MSCU0000013"]);
  assert.equal((await Deno.stat(complete)).mtime!.getTime(), before, "the complete PDF is not rewritten");
  for (const [i, path] of [complete, truncated, deleted].entries()) {
    assert.ok(words(await pdfText(path)).includes(containers[i]!), path);
  }
  assert.match(resumed.stdout, /Row 1\/3 .*already present/);
  assert.doesNotMatch(resumed.stdout, /Row [23]\/3 .*already present/);
});

Deno.test("--retries 2: 503 twice then 200 passes, 503 three times fails, a 404 is asked once, a 429 waits", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const containers = ["FLAKY2-0000021", "DOWN503-0000022", "ERR404-0000023", "RATE429-0000024"];
  const csv = await dir.csv(
    "retry.csv",
    ["container_number,invoice_no", ...containers.map((c) => `${c},I`)].join("\n"),
  );
  const run = await runJobProcess(
    "port",
    portArgs(sandbox, csv, dir.out, "R3", "--retries=2", "--fail-on-row-errors"),
    { env: dir.env },
  );
  assert.equal(run.code, 3, "rows failed under --fail-on-row-errors: exit 3\n" + run.stdout + run.stderr);
  const posts = postsOf(sandbox);
  const count = (container: string) => posts.filter((p) => p === container).length;
  assert.equal(count(containers[0]!), 3, "503, 503, then 200");
  assert.equal(count(containers[1]!), 3, "503 on every try: three tries, then failed");
  assert.equal(count(containers[2]!), 1, "a 404 will not pass: asked once");
  assert.equal(count(containers[3]!), 2, "429, then 200");
  const rateTimes = sandbox.requests.port.filter((r) => r.form?.containerLocation === containers[3]).map((
    r,
  ) => r.at);
  assert.ok(
    rateTimes[1]! - rateTimes[0]! >= 1_000,
    `Retry-After: 1 honoured with the pauses off (${rateTimes})`,
  );

  const results = uploadedResults(sandbox);
  assert.match(results[0]!, /^FLAKY2-0000021,I,success,,/);
  assert.match(results[1]!, /^DOWN503-0000022,I,error,the port portal answered HTTP 503/);
  assert.match(results[2]!, /^ERR404-0000023,I,error,the port portal answered HTTP 404/);
  assert.match(results[3]!, /^RATE429-0000024,I,success,,/);
  assert.match(
    run.stdout,
    /Row 1\/4 \(.*\): try 1 of 3 failed: the port portal answered HTTP 503.*; trying again in/,
  );
  assert.match(run.stdout, /Row 1\/4 \(.*\): try 2 of 3 failed/);
  assert.match(run.stdout, /Row 2\/4 \(.*\): failed: the port portal answered HTTP 503/);
  assert.doesNotMatch(run.stdout, /Row 3\/4 .*try 1 of 3 failed/);
  assert.match(
    run.stdout,
    /Row 4\/4 \(.*\): try 1 of 3 failed: the port portal answered HTTP 429.*trying again in 1 s/,
  );
  assert.ok(
    sandbox.requests.jobServer.some((r) => r.path.endsWith("/complete")),
    "completion reported first",
  );
  assert.ok(words(await pdfText(`${dir.out}/001 I FLAKY2-0000021.pdf`)).includes("FLAKY2-0000021"));
});

Deno.test("Job A: --retries passes a tracking page that first came as a 503 error page; exit codes", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const cases = ["without its frame", "under --verify", "a row failed"] as const;
  await eachAtOnce(cases, async (kind) => {
    if (kind === "without its frame") {
      // A page without its frame, then with it: tried again, exit 0 under --fail-on-row-errors. The first try
      // runs its element wait out, so the wait is short: the retried row's detail page, which that wait also
      // bounds, is checked under --verify below.
      const csv = await dir.csv("a1.csv", "fcr_number,invoice_no\nCPH-FLAKY1-201,I1\nCPH2026000202,I2\n");
      const out = `${dir.path}/a1`;
      const run = await runJobProcess("shipment", [
        csv,
        out,
        "A1",
        sandbox.apiBaseUrl,
        "u1",
        ...shipmentFlags(sandbox, { "wait-timeout": "1", retries: "1" }),
        "--fail-on-row-errors",
      ], { env: dir.env });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /Row 1\/2 \(.*\): try 1 of 2 failed: Iframe not found on page/);
      assert.equal(sandbox.requests.portal.filter((r) => r.path === "/CPH-FLAKY1-201").length, 2);
      const text = words(await pdfText(`${out}/001 I1 CPH-FLAKY1-201.pdf`));
      assert.ok(text.includes("Shipment CPH-FLAKY1-201"), text);
    } else if (kind === "under --verify") {
      // Under --verify the 503 page fails its try at once, so every wait can be ample: tried again, the row
      // prints its detail page.
      const csv = await dir.csv("a3.csv", "fcr_number,invoice_no\nCPH-FLAKY1-211,I1\nCPH2026000212,I2\n");
      const out = `${dir.path}/a3`;
      const run = await runJobProcess("shipment", [
        csv,
        out,
        "A3",
        ...shipmentFlags(sandbox, { "wait-timeout": `${AMPLE_S}`, retries: "1" }),
        "--verify",
        "--fail-on-row-errors",
      ], { env: dir.env });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /Row 1\/2 \(.*\): try 1 of 2 failed: the shipment page answered HTTP 503/);
      assert.equal(sandbox.requests.portal.filter((r) => r.path === "/CPH-FLAKY1-211").length, 2);
      const text = words(await pdfText(`${out}/001 I1 CPH-FLAKY1-211.pdf`));
      assert.ok(text.includes(detailMarker("CPH-FLAKY1-211", detailIdFor("CPH-FLAKY1-211"))), text);
    } else {
      // A row failed under --fail-on-row-errors: exit 3, after the upload and completion. Its element wait
      // runs out whatever its bound.
      const csv = await dir.csv("a2.csv", "fcr_number,invoice_no\nCPH-NOFRAME-203,I3\n");
      const run = await runJobProcess("shipment", [
        csv,
        `${dir.path}/a2`,
        "A2",
        sandbox.apiBaseUrl,
        "u1",
        ...shipmentFlags(sandbox, { "wait-timeout": "0.5" }),
        "--fail-on-row-errors",
      ], { env: dir.env });
      assert.equal(run.code, 3, run.stdout + run.stderr);
      const calls = sandbox.requests.jobServer.filter((r) => r.jobId === "A2").map((r) =>
        r.path.split("/").pop()
      );
      assert.deepEqual(calls, ["upload-log", "complete"]);
    }
  });
});
