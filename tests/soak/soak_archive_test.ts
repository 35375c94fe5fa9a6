/**
 * The soak's `--archive mhtml`: the draw gives it to a share of the runs, the job is given it, the saved lines
 * are read with the archive's name and hash, and the checks hold each PDF's archive to its file, its saved line
 * and its capture record. No job runs here: the short soak of `soak_test.ts` runs seeds that draw it.
 */
import assert from "node:assert/strict";
import type { Sandbox } from "../../fixtures/sandbox.ts";
import type { ProvenanceVerdict } from "../../lib/provenance/pdf_provenance.ts";
import { checkArchives } from "../../soak/archive_checks.ts";
import { type Behaviour, BEHAVIOURS } from "../../soak/behaviours.ts";
import { pdfName, type RunEvidence } from "../../soak/checks.ts";
import { type DrawnRow, drawRun, drawSummary, type SoakPlan } from "../../soak/draw.ts";
import { jobArgs } from "../../soak/job_run.ts";
import { loggedEnds } from "../../soak/log_lines.ts";
import type { ArchiveFile } from "../../soak/run_state.ts";

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

const SECRET = "SOAK-LOCAL-SECRET-7f3a9c";

const kind = (name: string): Behaviour => {
  const found = BEHAVIOURS.find((behaviour) => behaviour.name === name);
  assert.ok(found, name);
  return found;
};

/** A Job B run of rows behaving as `names`. */
function plan(names: readonly string[], archive: boolean, provenance = false): SoakPlan {
  const rows = names.map((name, i): DrawnRow => {
    const behaviour = kind(name);
    return {
      index: i + 1,
      behaviour,
      value: `CNTU9X${i + 1}${behaviour.marker ? `-${behaviour.marker}` : ""}`,
      invoice: `I${i + 1}`,
    };
  });
  return {
    seed: 9,
    job: "port",
    rows,
    options: {
      concurrency: 1,
      browsers: 1,
      retries: 0,
      failOnRowErrors: false,
      jobServer: "ok",
      waitUntil: "pauses",
      verify: true,
      failOnText: false,
      provenance,
      report: false,
      summaryJson: false,
      metricsFile: false,
      archive,
    },
    pool: false,
    poolFullAtStart: false,
  };
}

const archiveName = (row: DrawnRow) => pdfName(row).replace(/\.pdf$/, ".mhtml");

/** An archive as Chromium writes one of the sandbox's report (headers, its first part the page). */
function mhtml(
  row: DrawnRow,
  page = `http://127.0.0.1:9/pcs/report?c=${row.value}`,
  body = row.value,
): string {
  return `From: <Saved by Blink>\r\nSnapshot-Content-Location: ${page}\r\nSubject: Report\r\n` +
    `Content-Type: multipart/related;\r\n\ttype="text/html";\r\n\tboundary="B"\r\n\r\n\r\n--B\r\n` +
    `Content-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Location: ${page}\r\n\r\n` +
    `<p>${body}</p>\r\n--B--\r\n`;
}

const hash = (text: string) => text.length.toString(16).padStart(64, "0");

function file(text: string): ArchiveFile {
  return { bytes: text.length, sha256: hash(text), text };
}

const at = "2026-11-28T10:00:00.000";
const rowLine = (row: DrawnRow, text: string) =>
  `${at} INFO Row ${row.index}/3 (container ${row.value}, invoice ${row.invoice}): ${text}`;
const savedLine = (row: DrawnRow, archive?: ArchiveFile, name = archiveName(row)) =>
  rowLine(
    row,
    `saved ${pdfName(row)} (SHA-256 ${"1".repeat(64)})${
      archive === undefined ? "" : `, archive ${name} (SHA-256 ${archive.sha256})`
    }`,
  );

/** An intact capture record naming `archive` (only what the archive checks read of it). */
const recorded = (archive?: ArchiveFile, name?: string): ProvenanceVerdict =>
  ({
    status: "intact",
    record: archive === undefined
      ? {}
      : { archive: { file: name, bytes: archive.bytes, sha256: archive.sha256 } },
  }) as unknown as ProvenanceVerdict;

interface Run {
  log: string[];
  pdfs: DrawnRow[];
  archives: [string, ArchiveFile][];
  provenance?: [DrawnRow, ProvenanceVerdict][];
}

function check(drawn: SoakPlan, run: Run): string[] {
  const stdout = run.log.join("\n");
  const evidence = {
    plan: drawn,
    state: {
      pdfs: new Map(run.pdfs.map((row) => [pdfName(row), row.value])),
      archives: new Map(run.archives),
      provenance: new Map((run.provenance ?? []).map(([row, verdict]) => [pdfName(row), verdict])),
    },
    secret: SECRET,
  } as unknown as RunEvidence;
  return checkArchives(evidence, loggedEnds(stdout));
}

Deno.test("the draw: --archive in about 30 % of the runs, apart from --tsa-url", () => {
  let archive = 0;
  let both = 0;
  let tsa = 0;
  for (const seed of SEEDS) {
    for (const job of ["shipment", "port"] as const) {
      const { options } = drawRun(seed, job, { rows: 10 });
      // From the stream of --tsa-url: --pool's changes leave it alone.
      assert.equal(drawRun(seed, job, { rows: 10, pool: true }).options.archive, options.archive);
      archive += options.archive ? 1 : 0;
      tsa += options.tsa === undefined ? 0 : 1;
      both += options.archive && options.tsa !== undefined ? 1 : 0;
    }
  }
  const runs = SEEDS.length * 2;
  assert.ok(Math.abs(archive / runs - 0.3) < 0.08, `--archive in ${archive} of ${runs}`);
  assert.ok(both > 0 && both < archive && both < tsa, `both in ${both}`);
  // Drawn after --tsa-url: runs.md's seeds keep their lists of authorities.
  assert.match(
    drawSummary(drawRun(2, "port", { rows: 30 })),
    /, stop after 14 \+ resume, tsa, archive(?:;|$)/,
  );
  assert.match(drawSummary(drawRun(1, "shipment", { rows: 30 })), /, tsa wrong-nonce only(?:;|$)/);
});

Deno.test("the job is given --archive mhtml as drawn", () => {
  const sandbox = { portUrl: "http://127.0.0.1:1/pcs", apiBaseUrl: "http://127.0.0.1:2" } as Sandbox;
  const args = (archive: boolean) =>
    jobArgs({
      sandbox,
      plan: plan(["normal"], archive),
      folder: { out: "/o", tmp: "/t", report: "/r.html", summary: "/s.json", metrics: "/m.prom" },
      jobId: "j",
      resume: false,
      killedValues: new Set(),
    }, "/rows.csv").filter((arg) => arg.startsWith("--archive"));
  assert.deepEqual(args(false), []);
  assert.deepEqual(args(true), ["--archive=mhtml"]);
});

Deno.test("the log lines: a saved line's archive is read apart from the PDF's hash", () => {
  const pdf = "a".repeat(64);
  const page = "b".repeat(64);
  const line = (text: string) => `${at} INFO Row 1/1 (container C1, invoice I1): ${text}`;
  assert.deepEqual(
    loggedEnds(
      [
        line(`saved 001 I1 C1.pdf (SHA-256 ${pdf}), archive 001 I1 C1.mhtml (SHA-256 ${page})`),
        line(`saved 001 I1 C1.pdf in browser 2, archive 001 I1 C1.mhtml (SHA-256 ${page})`),
        line(`saved 001 I1 C1.pdf in browser 2 (SHA-256 ${pdf})`),
      ].join("\n"),
    ),
    [
      {
        index: 1,
        status: "success",
        present: false,
        sha256: pdf,
        archive: { file: "001 I1 C1.mhtml", sha256: page },
      },
      { index: 1, status: "success", present: false, archive: { file: "001 I1 C1.mhtml", sha256: page } },
      { index: 1, status: "success", present: false, sha256: pdf },
    ],
  );
});

Deno.test("the checks: each PDF's archive beside it, hashed as its saved line and its capture record say", () => {
  const drawn = plan(["normal", "normal", "blankprint"], true, true);
  const [one, two, three] = drawn.rows as [DrawnRow, DrawnRow, DrawnRow];
  const [first, second] = [file(mhtml(one)), file(mhtml(two, undefined, `${two.value} and more`))];
  const log = [savedLine(one, first), savedLine(two, second), rowLine(three, "failed: the PDF is blank")];
  const run: Run = {
    log,
    pdfs: [one, two],
    archives: [[archiveName(one), first], [archiveName(two), second]],
    provenance: [[one, recorded(first, archiveName(one))], [two, recorded(second, archiveName(two))]],
  };
  assert.deepEqual(check(drawn, run), []);
  // The blank print's archive left behind; a PDF without its archive.
  assert.deepEqual(
    check(drawn, { ...run, archives: [[archiveName(one), first], [archiveName(three), file(mhtml(three))]] }),
    [
      `PDF ${pdfName(two)} without its archive ${archiveName(two)}`,
      `archive ${archiveName(three)} of no PDF`,
      `row 2: its saved line names ${archiveName(two)} (SHA-256 ${second.sha256}), the file ${
        archiveName(two)
      } hashes to (no file)`,
    ],
  );
  // The saved line names no archive, or another hash; the record another archive, or none.
  assert.deepEqual(
    check(drawn, {
      ...run,
      log: [savedLine(one), savedLine(two, first), log[2]!],
      provenance: [[one, recorded()], [two, recorded(second, archiveName(two))]],
    }),
    [
      "row 1: its saved line names no archive",
      `row 1: capture.json's archive (none), the file's {"file":"${
        archiveName(one)
      }","bytes":${first.bytes},` +
      `"sha256":"${first.sha256}"}`,
      `row 2: its saved line names ${archiveName(two)} (SHA-256 ${first.sha256}), the file ${
        archiveName(two)
      } hashes to ${second.sha256}`,
    ],
  );
  // An archive that names the file the browser read, or holds the local secret (a line broken in the middle).
  const local = file(
    mhtml(one, "file:///tmp/cj-report-1.html", `${SECRET.slice(0, 9)}=\r\n${SECRET.slice(9)}`),
  );
  assert.deepEqual(
    check(drawn, {
      ...run,
      log: [savedLine(one, local), ...log.slice(1)],
      archives: [[archiveName(one), local], [archiveName(two), second]],
      provenance: [[one, recorded(local, archiveName(one))], [two, recorded(second, archiveName(two))]],
    }),
    [
      `archive ${
        archiveName(one)
      } names file:///tmp/cj-report-1.html as its page (Snapshot-Content-Location)`,
      `archive ${archiveName(one)} names file:///tmp/cj-report-1.html as its page (first part)`,
      `archive ${archiveName(one)} holds the local secret file`,
    ],
  );
  // Without the option: no archive, and no record names one.
  const without = plan(["normal"], false, true);
  assert.deepEqual(
    check(without, {
      log: [savedLine(without.rows[0]!)],
      pdfs: [without.rows[0]!],
      archives: [[archiveName(without.rows[0]!), first]],
      provenance: [[without.rows[0]!, recorded(first, archiveName(without.rows[0]!))]],
    }),
    [
      `archive ${archiveName(without.rows[0]!)} without --archive`,
      `PDF ${pdfName(without.rows[0]!)}: its capture record names an archive without --archive`,
    ],
  );
});
