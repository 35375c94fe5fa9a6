/**
 * Test helper: LogTape set up to keep every record of the `test` category in memory, so a test reads the
 * lines a job-server client (or anything logging under `test`) wrote, as the job log would show them.
 *
 * @module
 */
import { configure, type LogRecord, reset } from "@logtape/logtape";

/** The records logged under the `test` category since {@linkcode CapturedLog.start} or the last `clear`. */
export class CapturedLog {
  /** Every record, in the order logged. */
  readonly records: LogRecord[] = [];

  /** Configures LogTape (replacing any configuration) to send the `test` category here. */
  async start(): Promise<void> {
    this.records.length = 0;
    await configure({
      reset: true,
      sinks: { mem: (r: LogRecord) => this.records.push(r) },
      loggers: [
        { category: ["test"], sinks: ["mem"], lowestLevel: "debug" },
        { category: ["logtape", "meta"], sinks: [] },
      ],
    });
  }

  /** Forgets the records so far. */
  clear(): void {
    this.records.length = 0;
  }

  /** The rendered lines, of the given levels only when any are given. */
  lines(...levels: LogRecord["level"][]): string[] {
    return this.records.filter((r) => levels.length === 0 || levels.includes(r.level)).map(render);
  }

  /** Every line so far, one per line, as the in-memory job log uploads them. */
  text(): string {
    return this.records.map((r) => `${render(r)}\n`).join("");
  }

  /** Resets LogTape's configuration. */
  async stop(): Promise<void> {
    await reset();
  }
}

function render(r: LogRecord): string {
  return r.message.map((part, i) => (i % 2 === 0 ? part : String(part))).join("");
}
