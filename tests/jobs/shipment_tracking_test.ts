/**
 * Job A end to end: the real entry point as a subprocess, under the compiled permission flags, against
 * the sandbox's tracking portal (127.0.0.1) and reporting site (localhost: another site, so the frame is
 * out of process, as in reality), with real Chromium; PDFs read back as text.
 */
import assert from "node:assert/strict";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

const words = (text: string) => text.replace(/\s+/g, " ");

// Time bounds. An element wait or a re-pointed frame's load that the test expects to end (the late frame,
// 1.5 s after load; a detail page) has AMPLE_S, which only a hang runs out. The one row whose frame never
// comes (NOFRAME) runs on its own, under shipmentFlags' 3 s wait, which it always runs out. The consent waits
// are shipmentFlags' 0.2 s a selector: a banner in the page's HTML from the start is found at once on any
// host, and where there is none every wait runs out.

/** Job A's flags for `sandbox`, with waits only a hang runs out; `overrides` as for `shipmentFlags`. */
function ampleFlags(sandbox: Sandbox, overrides: Record<string, string | null> = {}): string[] {
  return shipmentFlags(sandbox, { "wait-timeout": `${AMPLE_S}`, ...overrides });
}

Deno.test("Job A prints the detail page for every way the reporting site names the record", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const fcrs = [
    "CPH2026000101", // search answers with a redirect
    "CPH-LINKABS-102", // absolute link with &amp;
    "CPH-LINKREL-103", // relative link
    "CPH-LINKCASE-104", // upper-case link, lower-case txt
    "CPH 105/A&B", // a value that must be percent-encoded everywhere
    `CPH"106'<\/script>\\`, // quotes, markup and a backslash: data in every URL and script, never code
  ];
  const csv = await dir.csv(
    "shipments.csv",
    [" FCR Number ,Invoice No", ...fcrs.map((fcr, i) => `"${fcr.replaceAll('"', '""')}",INV-${i + 1}`)].join(
      "\n",
    ),
  );
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "A1",
    sandbox.apiBaseUrl,
    "u1",
    ...ampleFlags(sandbox),
  ], {
    env: dir.env,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /WARNING/, "every frame ended on its detail page");
  const pdfs = await dir.pdfs();
  assert.deepEqual(
    pdfs,
    fcrs.map((fcr, i) => `00${i + 1} INV-${i + 1} ${fcr.replace(/[/\\]/g, "_")}.pdf`),
  );
  for (const [i, fcr] of fcrs.entries()) {
    const text = words(await pdfText(`${dir.out}/${pdfs[i]}`));
    assert.ok(text.includes(`Shipment ${fcr}`), `portal page of ${fcr}`);
    // The detail page's own text: the cross-site frame was re-pointed, loaded and printed.
    assert.ok(text.includes(detailMarker(fcr, detailIdFor(fcr))), `detail of ${fcr} in: ${text}`);
  }
  const portalPaths = sandbox.requests.portal.map((r) => r.path);
  assert.ok(portalPaths.includes("/CPH%20105%2FA%26B"), portalPaths.join(" "));
  const searches = sandbox.requests.reporting.filter((r) => r.query.ref === "/search").map((r) =>
    r.query.search
  );
  assert.deepEqual(searches, fcrs);
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
  assert.deepEqual(await dir.tmpEntries(), []);
});

Deno.test("Job A falls back, prints the page as it stands, or fails the row as the spec says", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv(
    "s.csv",
    [
      "fcr_number,invoice_no",
      "CPH-LINKOTHER-1,I1", // only a link for another txt: the first link is taken
      "CPH-NOLINK-2,I2", // no id: printed as it stands
      "CPH-SEARCH500-3,I3", // no id: printed as it stands
      "CPH-LATEFRAME-4,I4", // the frame appears 1.5 s after load
      "CPH-FRAMEDENY-5,I5", // the detail refuses framing: printed, with a warning
    ].join("\n"),
  );
  // "Iframe not found on page": a frame that never comes, waited for in a run of its own (see the top).
  const noFrame = await dir.csv("n.csv", "fcr_number,invoice_no\nCPH-NOFRAME-1,I1\n");
  const [run, failed] = await Promise.all([
    runJobProcess("shipment", [csv, dir.out, "A2", sandbox.apiBaseUrl, "u1", ...ampleFlags(sandbox)], {
      env: dir.env,
    }),
    runJobProcess("shipment", [noFrame, `${dir.path}/n`, "A2N", ...shipmentFlags(sandbox)], { env: dir.env }),
  ]);
  assert.equal(run.code, 0, run.stdout);
  assert.deepEqual(await dir.pdfs(), [
    "001 I1 CPH-LINKOTHER-1.pdf",
    "002 I2 CPH-NOLINK-2.pdf",
    "003 I3 CPH-SEARCH500-3.pdf",
    "004 I4 CPH-LATEFRAME-4.pdf",
    "005 I5 CPH-FRAMEDENY-5.pdf",
  ]);
  assert.ok(
    words(await pdfText(`${dir.out}/001 I1 CPH-LINKOTHER-1.pdf`)).includes(
      `RECORD ${detailIdFor("OTHER-123")}`,
    ),
  );
  const asItStands = words(await pdfText(`${dir.out}/002 I2 CPH-NOLINK-2.pdf`));
  assert.match(asItStands, /Shipment CPH-NOLINK-2/);
  assert.match(asItStands, /Reporting home/);
  assert.doesNotMatch(asItStands, /DETAIL/);
  assert.match(
    run.stdout,
    /WARNING Row 2: no detail record id for FCR CPH-NOLINK-2; printing the page as it stands/,
  );
  assert.match(run.stdout, /WARNING Row 3: the search answered HTTP 500/);
  assert.match(
    run.stdout,
    /WARNING Row 5: the frame did not end on the detail page .*CPH-FRAMEDENY-5 \(it shows chrome-error:\/\/chromewebdata\/\)/,
  );
  assert.doesNotMatch(
    words(await pdfText(`${dir.out}/005 I5 CPH-FRAMEDENY-5.pdf`)),
    /DETAIL CPH-FRAMEDENY-5/,
  );
  assert.ok(
    words(await pdfText(`${dir.out}/004 I4 CPH-LATEFRAME-4.pdf`)).includes(
      detailMarker("CPH-LATEFRAME-4", detailIdFor("CPH-LATEFRAME-4")),
    ),
  );

  assert.equal(failed.code, 0, failed.stdout);
  assert.match(
    failed.stdout,
    /ERROR Row 1\/1 \(FCR CPH-NOFRAME-1, invoice I1\): failed: Iframe not found on page\n/,
  );
  assert.match(failed.stdout, /Finished: 1 row\(s\), 0 succeeded, 1 failed/);
  assert.deepEqual(await Array.fromAsync(Deno.readDir(`${dir.path}/n`)), []);

  const [upload, complete, ...more] = sandbox.requests.jobServer;
  assert.equal(more.length, 0);
  assert.equal(upload?.files?.logFile?.name, "shipment_tracking_A2.log");
  assert.match(upload?.files?.logFile?.type ?? "", /^text\/plain/);
  assert.deepEqual(upload?.form, {
    userId: "u1",
    serviceId: "shipment-tracking",
    serviceName: "Shipment Tracking",
    inputFileName: "s.csv",
    inputFilePath: csv,
    creditsUsed: "0.0",
  });
  assert.match(upload!.files!.logFile!.text, /Finished: 5 row\(s\), 5 succeeded, 0 failed/);
  assert.deepEqual(complete?.json, {
    success: true,
    resultFiles: ["/srv/jobs/A2/shipment_tracking_A2.log"],
    outputFiles: [],
    outputDirectory: dir.out,
    successfulCount: 5,
  });
});

Deno.test("Job A with the reporting site down prints each page as it stands", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const csv = await dir.csv("s.csv", "FCR Number,INVOICE_NO\nCPH1,I1\n");
  const run = await runJobProcess(
    "shipment",
    [
      csv,
      dir.out,
      "A3",
      ...ampleFlags(sandbox, { "reporting-url": `http://localhost:${deadPort}/report` }),
    ],
    { env: dir.env },
  );
  assert.equal(run.code, 0, run.stdout);
  assert.match(run.stdout, /WARNING Row 1: the search failed: .*/);
  assert.deepEqual(await dir.pdfs(), ["001 I1 CPH1.pdf"]);
  assert.match(words(await pdfText(`${dir.out}/001 I1 CPH1.pdf`)), /Shipment CPH1/);
});

Deno.test("Job A: consent banner, empty input, configuration errors, portal down, stop file", async (t) => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const one = await dir.csv("one.csv", "FCR Number,INVOICE_NO\nCPH1,I1\n");

  await t.step("the consent banner's allow-all button is clicked", async () => {
    // The banner is on every portal page until a click sets the consent cookie: had the job not clicked,
    // the shipment page it prints would show the banner.
    sandbox.options.consentBanner = true;
    const run = await runJobProcess("shipment", [one, `${dir.path}/c1`, "C1", ...ampleFlags(sandbox)], {
      env: dir.env,
    });
    sandbox.options.consentBanner = false;
    assert.equal(run.code, 0, run.stdout);
    assert.equal(sandbox.consentClicks, 1);
    assert.match(run.stdout, /Cookie consent accepted \(button\[data-test='coi-allow-all-button'\]\)/);
    const rowPage = sandbox.requests.portal.findLast((r) => r.path === "/CPH1");
    assert.match(
      rowPage?.headers.cookie ?? "",
      /\bCookieInformationConsent=/,
      "the row's page came with consent",
    );
    const text = words(await pdfText(`${dir.path}/c1/001 I1 CPH1.pdf`));
    assert.match(text, /Shipment CPH1/);
    assert.doesNotMatch(text, /We use cookies|Allow all/);
  });

  await t.step("no banner: no click, the job goes on", async () => {
    const run = await runJobProcess("shipment", [one, `${dir.path}/c2`, "C2", ...ampleFlags(sandbox)], {
      env: dir.env,
    });
    assert.equal(run.code, 0, run.stdout);
    assert.equal(sandbox.consentClicks, 1);
    assert.match(run.stdout, /No cookie consent dialog/);
    assert.match(words(await pdfText(`${dir.path}/c2/001 I1 CPH1.pdf`)), /Shipment CPH1/);
  });

  await t.step("header-only CSV: zero rows, exit 0, log still uploaded", async () => {
    const empty = await dir.csv("empty.csv", "FCR Number,INVOICE_NO\n");
    const before = sandbox.requests.jobServer.length;
    const run = await runJobProcess("shipment", [
      empty,
      `${dir.path}/e`,
      "E1",
      sandbox.apiBaseUrl,
      "u",
      ...shipmentFlags(sandbox),
    ], {
      env: dir.env,
    });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /0 shipment\(s\) to capture/);
    assert.deepEqual(sandbox.requests.jobServer.slice(before).map((r) => r.path.split("/").pop()), [
      "upload-log",
      "complete",
    ]);
  });

  await t.step("log upload fails: completion is not reported, exit 0", async () => {
    sandbox.jobServer.mode = "error-500";
    const before = sandbox.requests.jobServer.length;
    const run = await runJobProcess("shipment", [
      one,
      `${dir.path}/f`,
      "F1",
      sandbox.apiBaseUrl,
      "u",
      ...ampleFlags(sandbox),
    ], {
      env: dir.env,
    });
    sandbox.jobServer.mode = "ok";
    assert.equal(run.code, 0);
    assert.deepEqual(sandbox.requests.jobServer.slice(before).map((r) => r.path.split("/").pop()), [
      "upload-log",
    ]);
    assert.match(run.stdout, /Completion not reported/);
  });

  await t.step("missing --frame-selector: one-line error, exit 1, no browser", async () => {
    const run = await runJobProcess("shipment", [
      one,
      dir.out,
      "X",
      ...shipmentFlags(sandbox, { "frame-selector": null }),
    ], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: --frame-selector \(or FRAME_SELECTOR\) is required for this job\n/);
    // The job's first log line goes to standard output as soon as it runs, before its browser starts.
    assert.equal(run.stdout, "");
  });

  await t.step(
    "a frame selector that does not parse (quotes from an env file): exit 1, the job never starts",
    async () => {
      const flags = shipmentFlags(sandbox, { "frame-selector": null });
      const run = await runJobProcess("shipment", [one, dir.out, "Q", ...flags], {
        env: { ...dir.env, FRAME_SELECTOR: `'${sandbox.frameSelector}'` },
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^error: --frame-selector is not a valid CSS selector \(.+\): '#/);
      assert.equal(run.stdout, "");
    },
  );

  await t.step(
    "--visible on a host without a display: the browser is started with a window, so it fails, exit 1",
    async () => {
      const portalRequests = sandbox.requests.portal.length;
      const run = await runJobProcess(
        "shipment",
        [one, `${dir.path}/w`, "W1", "--visible", ...shipmentFlags(sandbox)],
        { env: { ...dir.env, DISPLAY: "", WAYLAND_DISPLAY: "" } },
      );
      assert.equal(run.code, 1, run.stdout);
      assert.match(
        run.stdout,
        /Cannot start the browser or open the tracking portal: .*Missing X server or \$DISPLAY/,
      );
      assert.equal(sandbox.requests.portal.length, portalRequests, "no page was loaded");
    },
  );

  await t.step("--chrome-path that is not an executable: exit 1, the error names it", async () => {
    const run = await runJobProcess(
      "shipment",
      [one, `${dir.path}/b`, "B1", "--chrome-path=/nonexistent/chromium", ...shipmentFlags(sandbox)],
      { env: dir.env },
    );
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      /Cannot start the browser or open the tracking portal: .*\/nonexistent\/chromium is not an executable file/,
    );
  });

  for (
    const [name, file, content, message] of [
      ["not a .csv file", "rows.txt", "FCR Number,INVOICE_NO\nCPH1,I1\n", /Only CSV files are supported/],
      [
        "no FCR column",
        "cols.csv",
        "Shipment,INVOICE_NO\nCPH1,I1\n",
        /'FCR Number' column .*found columns: Shipment, INVOICE_NO/,
      ],
    ] as const
  ) {
    await t.step(
      `input that cannot be read (${name}): the reason is logged, zero rows, exit 0, log uploaded`,
      async () => {
        const input = await dir.csv(file, content);
        const out = `${dir.path}/r-${file}`;
        const before = sandbox.requests.jobServer.length;
        const run = await runJobProcess("shipment", [
          input,
          out,
          "R1",
          sandbox.apiBaseUrl,
          "u",
          ...shipmentFlags(sandbox),
        ], {
          env: dir.env,
        });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        assert.match(run.stdout, message);
        assert.match(run.stdout, /0 shipment\(s\) to capture/);
        assert.deepEqual(await Array.fromAsync(Deno.readDir(out)), []);
        const calls = sandbox.requests.jobServer.slice(before).map((r) => r.path.replace(/^.*\//, ""));
        assert.deepEqual(calls, ["upload-log", "complete"]);
      },
    );
  }

  await t.step("settings from variables", async () => {
    const run = await runJobProcess("shipment", [
      one,
      `${dir.path}/v`,
      "V1",
      "--pause-scale=0",
      "--consent-timeout=0.2",
    ], {
      env: {
        ...dir.env,
        TRACKING_PORTAL_URL: sandbox.trackingPortalUrl,
        REPORTING_URL: sandbox.reportingUrl,
        FRAME_SELECTOR: sandbox.frameSelector,
      },
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(`${dir.path}/v`))).map((e) => e.name), [
      "001 I1 CPH1.pdf",
    ]);
  });

  await t.step("tracking portal down: exit 1", async () => {
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const deadPort = (closed.addr as Deno.NetAddr).port;
    closed.close();
    const flags = shipmentFlags(sandbox, { "tracking-portal-url": `http://127.0.0.1:${deadPort}` });
    const run = await runJobProcess("shipment", [one, `${dir.path}/d`, "D1", ...flags], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      /Cannot start the browser or open the tracking portal: Cannot load .*ERR_CONNECTION_REFUSED/,
    );
  });

  await t.step("stop file before the first row: exit 130, nothing uploaded", async () => {
    const out = `${dir.path}/s`;
    await Deno.mkdir(out);
    await Deno.writeTextFile(`${out}/stop_S1.txt`, "");
    const before = sandbox.requests.jobServer.length;
    const run = await runJobProcess("shipment", [
      one,
      out,
      "S1",
      sandbox.apiBaseUrl,
      "u",
      ...shipmentFlags(sandbox),
    ], {
      env: dir.env,
    });
    assert.equal(run.code, 130);
    assert.equal(sandbox.requests.jobServer.length, before);
  });
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
  assert.deepEqual(await dir.tmpEntries(), []);
});
