/**
 * What a project job's log tells about its timing: when it was ready for its first row, and per row the
 * time from "processing" to "saved" (the row's work) and from "saved" to the next "processing" (the
 * loop's own work between rows). Log lines carry local wall-clock times with millisecond resolution.
 *
 * @module
 */

/** Timings read from one run's log; ms, relative to the process spawn where marked. */
export interface ProjectLog {
  /** Spawn → the job's first log line (Deno start, module loading, configuration). */
  firstLineMs: number;
  /** Spawn → the "N row(s) to capture" line (browser started, tab ready, input read). */
  readyMs: number;
  /** "processing" → "saved" of the same row, per row. */
  rowWorkMs: number[];
  /** "saved" of a row → the next "processing" line (the loop's own work at `--concurrency 1`). */
  betweenRowsMs: number[];
  /** Rows logged as failed. */
  failedRows: number;
  /** Spawn → each "saved" line, by row number (1-based), for the memory run's checkpoints. */
  savedAtMs: Map<number, number>;
}

const LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}) (\w+) (.*)$/;
const ROW = /^Row (\d+)\/\d+ \(.*\): (processing|saved|failed)/;

/** Reads the job's standard output (its log). */
export function readProjectLog(stdout: string, spawnedAtEpochMs: number): ProjectLog {
  const log: ProjectLog = {
    firstLineMs: NaN,
    readyMs: NaN,
    rowWorkMs: [],
    betweenRowsMs: [],
    failedRows: 0,
    savedAtMs: new Map(),
  };
  /** Each row's "processing" time by its number: under `--concurrency N` the rows' lines interleave. */
  const processingAt = new Map<number, number>();
  let savedAt = NaN;
  for (const line of stdout.split("\n")) {
    const match = LINE.exec(line);
    if (!match) continue;
    // No offset in the stamp: `new Date` reads it as local time, as the job wrote it.
    const at = new Date(match[1]!).getTime() - spawnedAtEpochMs;
    const message = match[3]!;
    if (Number.isNaN(log.firstLineMs)) log.firstLineMs = at;
    if (/^\d+ (container|shipment)\(s\) to capture$/.test(message)) log.readyMs = at;
    const row = ROW.exec(message);
    if (!row) continue;
    const index = Number(row[1]);
    if (row[2] === "processing") {
      if (!Number.isNaN(savedAt)) log.betweenRowsMs.push(at - savedAt);
      processingAt.set(index, at);
    } else if (row[2] === "saved") {
      log.rowWorkMs.push(at - (processingAt.get(index) ?? NaN));
      log.savedAtMs.set(index, at);
      savedAt = at;
    } else {
      log.failedRows++;
      savedAt = NaN;
    }
  }
  return log;
}
