/**
 * The invariants every soak run must keep, whatever the draw, and the model's predictions, checked against
 * what the run did. Each check returns discrepancies as lines of text; none means PASS.
 *
 * @module
 */
import { parse } from "csv-parse/sync";
import {
  detailIdFor,
  detailMarker,
  LEAK_MARKER,
  type RecordedRequest,
  REPLACED_PAGE_MARKER,
} from "../fixtures/sandbox.ts";
import { pdfFileName } from "../lib/file_names.ts";
import { escapeHtml } from "../lib/report/html_text.ts";
import { JOB_COMMANDS } from "../lib/config/options.ts";
import type { RowStatus } from "../lib/run/rows/row_result.ts";
import { checkArchives } from "./archive_checks.ts";
import { type DrawnRow, type SoakPlan, withProvenance } from "./draw.ts";
import { type JobRunRecord, type RssSample, type RunFolder, WAITS_FOR_POOL } from "./job_run.ts";
import { firstTryFailure, type LoggedEnd, loggedEnds, retriedTries, rowLineIndexes } from "./log_lines.ts";
import { exitCodeFor, type Prediction, type RowPrediction } from "./model.ts";
import type { RunState } from "./run_state.ts";
import { checkTimestamps } from "./timestamp_checks.ts";
import { checkWatch } from "./watch_checks.ts";

/** Everything one check of a run looks at. */
export interface RunEvidence {
  plan: SoakPlan;
  prediction: Prediction;
  record: JobRunRecord;
  state: RunState;
  /** The text of the local secret file the hostile pages reach for. */
  secret: string;
  /** "stopped": the run was asked to stop (by the soak's stop file) and may end before its last row. */
  ending: "finished" | "stopped";
  /** The run's job id. */
  jobId: string;
  /** The run's folders and files (the summary's outputDir and report, where the metrics are). */
  folder: RunFolder;
  /** The run's `--ping-url`, when drawn. */
  pingUrl?: string;
  /** The run's `--tsa-url`s, in order, when drawn. */
  tsaUrls?: readonly string[];
}

/** Job B's growth bound: the job's RSS from row 1,000 to the end of a long run. */
export const MAX_JOB_RSS_GROWTH = 20 * 1024 * 1024;

const squeeze = (text: string) => text.replace(/\s+/g, "");

/** The discrepancies of one run, most telling first. */
export function checkRun(evidence: RunEvidence): string[] {
  const ends = loggedEnds(evidence.record.stdout);
  const stopped = evidence.ending === "stopped" && evidence.record.code === 130;
  return [
    ...checkExit(evidence, ends, stopped),
    ...checkRows(evidence, ends, stopped),
    ...checkLogOrder(evidence.record.stdout),
    ...checkPoolWait(evidence.record),
    ...checkPdfs(evidence, ends),
    ...checkProvenances(evidence, ends),
    ...checkTimestamps(evidence, ends, stopped),
    ...checkArchives(evidence, ends),
    ...checkReport(evidence, ends, stopped),
    ...checkWatch(evidence, ends),
    ...checkLeftovers(evidence.state),
    ...(stopped ? checkNothingSent(evidence.record) : checkServer(evidence, ends)),
    ...checkMemory(evidence.record),
  ];
}

function checkExit({ plan, record }: RunEvidence, ends: LoggedEnd[], stopped: boolean): string[] {
  if (stopped) return [];
  const expected = exitCodeFor(plan, ends.map((end) => end.status));
  return record.code === expected ? [] : [`exit code ${record.code}, expected ${expected}`];
}

/** Each row ends once, as the model says; a finished run ends every row. */
function checkRows({ plan, prediction, record }: RunEvidence, ends: LoggedEnd[], stopped: boolean): string[] {
  const problems: string[] = [];
  const byIndex = new Map<number, LoggedEnd[]>();
  for (const end of ends) byIndex.set(end.index, [...byIndex.get(end.index) ?? [], end]);
  for (const row of plan.rows) {
    const mine = byIndex.get(row.index) ?? [];
    const predicted = prediction.rows[row.index - 1]!;
    if (mine.length === 0) {
      if (!stopped) problems.push(`row ${row.index} (${row.behaviour.name}): no end in the log`);
      continue;
    }
    if (mine.length > 1) {
      problems.push(`row ${row.index} (${row.behaviour.name}): ended ${mine.length} times`);
    }
    const end = mine[0]!;
    if (!statusAllowed(predicted, end)) {
      problems.push(
        `row ${row.index} (${row.behaviour.name}): ${end.status}${
          end.error ? ` (${end.error})` : ""
        }, expected ${predicted.present ? "already present" : predicted.status}${
          record.killed.has(row.index) ? ` [killed: ${record.killed.get(row.index)}]` : ""
        }`,
      );
    }
    if (end.present !== predicted.present && end.status === "success") {
      problems.push(`row ${row.index}: ${end.present ? "logged present" : "captured again"} under --resume`);
    }
    problems.push(...checkFirstTry(row, predicted, record.stdout));
    problems.push(...checkFailure(row, predicted, end, record.stdout));
  }
  return problems;
}

/**
 * A row the model says fails for a known cause failed with it, after as many tries as `--retries` gives such
 * a failure. A failure the browser's kill excuses (see {@linkcode statusAllowed}, and a kill that landed on
 * the row's last try) is not held to it.
 */
function checkFailure(row: DrawnRow, predicted: RowPrediction, end: LoggedEnd, log: string): string[] {
  const { failure } = predicted;
  if (failure === undefined || end.status !== "error" || predicted.status !== "error") return [];
  if ((predicted.mayFailWithBrowser || failure.orBrowserGone) && BROWSER_GONE.test(end.error ?? "")) {
    return [];
  }
  const problems: string[] = [];
  if (!failure.reason.test(end.error ?? "")) {
    problems.push(
      `row ${row.index} (${row.behaviour.name}): failed with "${end.error}", expected ${failure.reason.source}`,
    );
  }
  const tries = retriedTries(log, row.index) + 1;
  if (failure.tries !== undefined && tries !== failure.tries) {
    problems.push(
      `row ${row.index} (${row.behaviour.name}): failed after ${tries} tries, expected ${failure.tries}`,
    );
  }
  return problems;
}

/** A row the model says fails its first try (it was on the lost pool member) failed it for that cause. */
function checkFirstTry(row: DrawnRow, predicted: RowPrediction, log: string): string[] {
  if (predicted.firstTryFailure === undefined) return [];
  const failure = firstTryFailure(log, row.index);
  if (failure !== undefined && predicted.firstTryFailure.test(failure)) return [];
  return [
    `row ${row.index} (${row.behaviour.name}): its first try ${
      failure === undefined ? "did not fail" : `failed with "${failure}"`
    }, expected to fail as ${predicted.firstTryFailure.source}`,
  ];
}

/** The errors of a row in progress when the soak killed the browser. */
const BROWSER_GONE = /browser|renderer|target closed|websocket/i;

function statusAllowed(predicted: RowPrediction, end: LoggedEnd): boolean {
  if (end.status === predicted.status) return true;
  // Killed with the browser while in progress: only that cause excuses the failure.
  return predicted.mayFailWithBrowser && end.status === "error" && BROWSER_GONE.test(end.error ?? "");
}

/** Every line that names a row comes after the lines of the rows before it. */
function checkLogOrder(log: string): string[] {
  const indexes = rowLineIndexes(log);
  const at = indexes.findIndex((index, i) => i > 0 && index < indexes[i - 1]!);
  return at < 0
    ? []
    : [`log out of file order: a line of row ${indexes[at]} after one of row ${indexes[at - 1]}`];
}

/**
 * A run that started with the pool full said once, before its first row, that it waits for the pool, and
 * then that it had a browser after the pool's 429s: the wait cost no row a try (checked with the rows).
 */
function checkPoolWait(record: JobRunRecord): string[] {
  if (!record.poolWasFull) return [];
  const log = record.stdout;
  const firstRow = log.search(/ Row \d+\/\d+ /);
  const beforeRows = firstRow < 0 ? log : log.slice(0, firstRow);
  const waits = beforeRows.match(new RegExp(WAITS_FOR_POOL.source, "g"))?.length ?? 0;
  const got =
    /INFO Got a browser from the pool after [\d.]+ s of waiting \(its answers meanwhile: HTTP 429 ×\d+\)/;
  return [
    ...(waits === 1
      ? []
      : [`the pool was full at the start: ${waits} lines before the first row say the job waits`]),
    ...(got.test(beforeRows)
      ? []
      : ["the pool was full at the start: no line says when the job had its browser"]),
  ];
}

/** The PDFs are exactly the successful rows', each showing its own row's page and no local file. */
function checkPdfs({ plan, state, secret }: RunEvidence, ends: LoggedEnd[]): string[] {
  const problems: string[] = [];
  const successes = new Set(ends.filter((end) => end.status === "success").map((end) => end.index));
  const expected = new Map(
    plan.rows.filter((row) => successes.has(row.index)).map((row) => [pdfName(row), row] as const),
  );
  for (const name of state.pdfs.keys()) {
    if (!expected.has(name)) problems.push(`PDF ${name} of no successful row`);
  }
  for (const [name, row] of expected) {
    const text = state.pdfs.get(name);
    if (text === undefined) {
      problems.push(`row ${row.index} (${row.behaviour.name}) succeeded without its PDF ${name}`);
      continue;
    }
    const flat = squeeze(text);
    if (row.behaviour.printed === "blank") {
      if (flat !== "") {
        problems.push(`PDF ${name} of a page that prints blank shows "${text.trim().slice(0, 60)}"`);
      }
      continue;
    }
    for (const own of ownTexts(plan, row)) {
      if (!flat.includes(squeeze(own))) problems.push(`PDF ${name} lacks its row's "${own}"`);
    }
  }
  for (const [name, text] of state.pdfs) {
    const flat = squeeze(text);
    if (flat.includes(squeeze(secret))) problems.push(`PDF ${name} holds the local secret file`);
    if (flat.includes(squeeze(LEAK_MARKER))) problems.push(`PDF ${name} shows a local file was read`);
    if (text.includes(REPLACED_PAGE_MARKER)) problems.push(`PDF ${name} shows a page the row navigated to`);
  }
  return problems;
}

/**
 * Under `--provenance` (or `--tsa-url`, which implies it), every PDF carries an intact capture record of its own
 * row, whose printed bytes hash as the row's saved line says; without it, no PDF carries one (the spec's PDF is
 * what Chromium printed).
 */
function checkProvenances({ plan, state }: RunEvidence, ends: LoggedEnd[]): string[] {
  const problems: string[] = [];
  const byName = new Map(plan.rows.map((row) => [pdfName(row), row] as const));
  const saved = new Map(ends.filter((end) => !end.present).map((end) => [end.index, end.sha256] as const));
  for (const [name, verdict] of state.provenance) {
    if (!withProvenance(plan.options)) {
      if (verdict.status !== "none") problems.push(`PDF ${name} carries provenance without --provenance`);
      continue;
    }
    if (verdict.status !== "intact") {
      problems.push(`PDF ${name}: provenance ${verdict.status}: ${verdict.problem}`);
      continue;
    }
    const row = byName.get(name);
    const { record: capture } = verdict;
    if (row === undefined) continue; // checkPdfs names a PDF of no row
    const values = Object.values(capture.values);
    if (
      capture.row !== row.index || capture.pdfFile !== name || capture.job !== JOB_COMMANDS[plan.job] ||
      values[0] !== row.value || values[1] !== row.invoice
    ) {
      problems.push(`PDF ${name}: its capture record names row ${capture.row} (${values.join(", ")})`);
    }
    const hash = saved.get(row.index);
    if (saved.has(row.index) && hash !== capture.printed.sha256) {
      problems.push(`PDF ${name}: the saved line's SHA-256 ${hash ?? "(none)"} is not the record's`);
    }
  }
  return problems;
}

/** A row's card in the report: its class (how it ended), its index, the word in its heading, the rest. */
const REPORT_CARD = /<li class="(\w+)" id="row-(\d+)">.*?<h3>Row \d+: ([^<]*)<\/h3>(.*?)<\/li>/gs;

/**
 * Under `--report`, the report lists every row once, each as its log ends it (saved, already present, failed
 * with the same error; a row a stop left unended as interrupted or not reached), and the run's exit code;
 * without it, no report is written.
 */
function checkReport({ plan, state, record }: RunEvidence, ends: LoggedEnd[], stopped: boolean): string[] {
  if (!plan.options.report) return state.report === undefined ? [] : ["a report written without --report"];
  if (state.report === undefined) return ["no report written under --report"];
  const problems: string[] = [];
  const cards = new Map<number, { kind: string; word: string; rest: string }[]>();
  for (const [, kind, index, word, rest] of state.report.matchAll(REPORT_CARD)) {
    cards.set(Number(index), [...cards.get(Number(index)) ?? [], { kind: kind!, word: word!, rest: rest! }]);
  }
  const endOf = new Map(ends.map((end) => [end.index, end] as const));
  for (const row of plan.rows) {
    const mine = cards.get(row.index) ?? [];
    if (mine.length !== 1) {
      problems.push(`report: row ${row.index} listed ${mine.length} times`);
      continue;
    }
    const [{ kind, word, rest }] = mine as [{ kind: string; word: string; rest: string }];
    const end = endOf.get(row.index);
    const expected = end === undefined
      ? (stopped ? ["interrupted by the stop", "not reached"] : ["(an end)"])
      : [end.status === "error" ? "failed" : end.present ? "already present" : "saved"];
    if (!expected.includes(word) || (end !== undefined && kind !== end.status)) {
      problems.push(`report: row ${row.index} is "${word}" (${kind}), its log says ${expected.join(" or ")}`);
    }
    if (end?.error !== undefined && !rest.includes(`<p class="failure">${escapeHtml(end.error)}</p>`)) {
      problems.push(`report: row ${row.index} lacks its error "${end.error}"`);
    }
  }
  const exit = /<dt>Exit code<\/dt><dd>(\d+)/.exec(state.report)?.[1];
  if (exit !== String(record.code)) {
    problems.push(`report: exit code ${exit ?? "(none)"}, the run's ${record.code}`);
  }
  return problems;
}

/** A row's PDF name, as the job writes it. */
export function pdfName(row: DrawnRow): string {
  return pdfFileName(row.index, row.invoice, row.value);
}

/** Text only the row's own page shows (or, for a row whose page is another's, that page). */
function ownTexts(plan: SoakPlan, row: DrawnRow): string[] {
  const { printed } = row.behaviour;
  if (typeof printed === "function") return printed(row.value);
  if (plan.job === "port") return [row.value];
  const shipment = `Shipment ${row.value}`;
  return row.behaviour.detail ? [shipment, detailMarker(row.value, detailIdFor(row.value))] : [shipment];
}

function checkLeftovers(state: RunState): string[] {
  return [
    ...state.otherOutputs.map((name) => `file left in the output folder: ${name}`),
    ...state.tmpLeft.map((name) => `temporary file left: ${name}`),
    ...state.partialsLeft.map((path) => `partial file left: ${path}`),
    ...state.processesLeft.map((pid) => `process ${pid} of the run outlived it`),
    ...state.poolLeft,
  ];
}

function checkNothingSent(record: JobRunRecord): string[] {
  return record.serverRequests.length === 0
    ? []
    : [`a stopped run sent the job server ${record.serverRequests.map((r) => r.path).join(", ")}`];
}

/** The calls the job server received, the results CSV's rows and the completion's count. */
function checkServer(evidence: RunEvidence, ends: LoggedEnd[]): string[] {
  const { plan, prediction, record } = evidence;
  const calls = record.serverRequests.map(callOf);
  const problems: string[] = [];
  if (calls.join(", ") !== prediction.server.calls.join(", ")) {
    problems.push(
      `job server received [${calls.join(", ")}], expected [${prediction.server.calls.join(", ")}]`,
    );
  }
  const statuses = ends.map((end) => end.status);
  const successes = statuses.filter((status) => status === "success").length;
  for (const request of record.serverRequests) {
    const call = callOf(request);
    if (call === "upload results") problems.push(...checkResultsCsv(plan, request, ends));
    if (call === "upload log") {
      const uploaded = loggedEnds(request.files?.logFile?.text ?? "").map(endText).join("; ");
      if (uploaded !== ends.map(endText).join("; ")) {
        problems.push("the uploaded log's row ends differ from the run's");
      }
    }
    if (call === "complete") {
      const count = (request.json as { successfulCount?: unknown } | undefined)?.successfulCount;
      if (count !== successes) {
        problems.push(`completion's successfulCount ${count}, ${successes} rows succeeded`);
      }
    }
  }
  return problems;
}

function callOf(request: RecordedRequest): string {
  if (request.path.endsWith("/complete")) return "complete";
  return request.files?.logFile?.name.endsWith(".csv") ? "upload results" : "upload log";
}

const endText = (end: LoggedEnd) => `${end.index} ${end.status}`;

/** Job B's results CSV: one line per row in file order, with the row's values and its status. */
function checkResultsCsv(plan: SoakPlan, request: RecordedRequest, ends: LoggedEnd[]): string[] {
  const records = parse(request.files?.logFile?.text ?? "", { columns: true }) as Record<string, string>[];
  const got = records.map((r) => `${r.container_number} ${r.invoice_no} ${r.status}`);
  const status = new Map<number, RowStatus>(ends.map((end) => [end.index, end.status]));
  const want = plan.rows.map((row) => `${row.value} ${row.invoice} ${status.get(row.index)}`);
  const at = want.findIndex((line, i) => got[i] !== line);
  if (at < 0 && got.length === want.length) return [];
  return [`results CSV line ${at + 1}: "${got[at] ?? "missing"}", expected "${want[at] ?? "none"}"`];
}

/** A long run's job RSS grows by at most {@linkcode MAX_JOB_RSS_GROWTH} from its 1,000th row to its end. */
function checkMemory(record: JobRunRecord): string[] {
  const growth = jobRssGrowth(record.samples);
  return growth === undefined || growth <= MAX_JOB_RSS_GROWTH
    ? []
    : [`job RSS grew by ${(growth / 2 ** 20).toFixed(1)} MB after row 1,000 (at most 20 MB)`];
}

/**
 * How much one job process's RSS grew from its 1,000th row to its end (its peak from then on), in bytes;
 * undefined for a process that worked on fewer rows. The rows counted are those it worked on: a run resumed
 * after row 2,749 passes its first 1,000 rows in moments without a page, its browser work not begun yet.
 */
export function jobRssGrowth(samples: readonly RssSample[]): number | undefined {
  const after = samples.filter((sample) => sample.rowsWorked >= 1000);
  if (after.length === 0) return undefined;
  return Math.max(...after.map((sample) => sample.job)) - after[0]!.job;
}
