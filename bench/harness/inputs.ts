/**
 * The benchmark's input files: N rows per job, with values that carry none of the sandbox's trigger
 * words, so every row takes the normal path (Job B: a report page; Job A: the search redirects to the
 * detail record, the default variant).
 *
 * @module
 */
import type { JobKind } from "../../lib/config/option_types.ts";

/** Marker words that switch the sandbox into an error, slow or alternative path. */
export const SANDBOX_TRIGGERS: readonly string[] = [
  // port portal
  "ERR500",
  "SHORT",
  "SLOW",
  // tracking portal and reporting site
  "NOFRAME",
  "LATEFRAME",
  "SEARCH500",
  "SEARCHSLOW",
  "NOLINK",
  "LINKOTHER",
  "LINKABS",
  "LINKREL",
  "LINKCASE",
];

/** One generated row: the value a PDF must show, and its invoice. */
export interface BenchRow {
  /** Container number (Job B) or FCR number (Job A). */
  value: string;
  invoice: string;
}

/** `count` rows of a job; the values are unique and deterministic. */
export function benchRows(job: JobKind, count: number): BenchRow[] {
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(7, "0");
    const value = job === "port" ? `BNCU${n}` : `FCRB${n}`;
    const upper = value.toUpperCase();
    const trigger = SANDBOX_TRIGGERS.find((word) => upper.includes(word));
    if (trigger) throw new Error(`generated value ${value} contains the sandbox trigger ${trigger}`);
    return { value, invoice: `INV-${n}` };
  });
}

/** The CSV text the job reads: Job B `container_number,invoice_no`, Job A `FCR Number,INVOICE_NO`. */
export function benchCsv(job: JobKind, rows: readonly BenchRow[]): string {
  const header = job === "port" ? "container_number,invoice_no" : "FCR Number,INVOICE_NO";
  return [header, ...rows.map((row) => `${row.value},${row.invoice}`)].join("\n") + "\n";
}
