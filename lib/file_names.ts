/**
 * File names the jobs write, upload or look for (spec sections "PDF file", "Results CSV", "Log",
 * "Stop file" and the Job B temporary HTML file), and the hidden partial name a PDF is written under.
 *
 * Every value that ends up in a name (CSV cells, the job id) goes through {@link safeFileNamePart},
 * so a name never leaves its folder and is valid on the OS the job runs on, and every name is kept
 * within 255 UTF-8 bytes, the usual per-name limit of ext4, APFS and NTFS. Values that need neither
 * change give exactly the spec's names: on Linux and macOS that includes values with `< > : " | ? *`,
 * which those systems hold in a name, so anything downstream that builds a name from the CSV values by
 * the spec's rule finds the file. Only on Windows do those characters become "_" too.
 *
 * Each name has a fixed prefix and a fixed suffix, which is why no other Windows rule needs handling:
 * the names start with "NNN ", "ctg_port_", "stop_", "port_tracking_", "shipment_tracking_" or "." and
 * end in ".pdf", ".mhtml", ".html", ".log", ".csv", ".txt" or ".partial", so none can be "." or "..", a reserved
 * device name (CON, NUL, COM1, … with or without an extension) or end in a dot or a space.
 *
 * Every function takes the OS whose rules apply as its last parameter, `Deno.build.os` by default:
 * the jobs never pass it; tests pass "windows" to check the Windows rule on any host.
 *
 * @module
 */

/** Longest file name, in UTF-8 bytes, that ext4, APFS and NTFS all accept. */
export const MAX_FILE_NAME_BYTES = 255;

/** The OS whose file-name rules apply (the values of `Deno.build.os`). */
export type FileNameOs = typeof Deno.build.os;

// Control characters are exactly what these patterns are about, hence the lint exceptions.
// deno-lint-ignore no-control-regex
const UNSAFE_CHARS = /[/\\\u0000-\u001f\u007f-\u009f]/g;
// deno-lint-ignore no-control-regex
const UNSAFE_CHARS_WINDOWS = /[/\\<>:"|?*\u0000-\u001f\u007f-\u009f]/g;

/**
 * Makes a value safe to embed in a file name: the separators "/" and "\\" and control characters
 * (C0, DEL and C1, U+0080 to U+009F) become "_"; on Windows the characters it refuses in names
 * (`< > : " | ? *`) become "_" too. Nothing else changes, so ordinary values keep their exact spelling,
 * spaces, apostrophes and dots included ("..", embedded in a longer name, is harmless).
 *
 * @param os the OS whose rules apply; the one the job runs on unless a test says otherwise.
 * @example
 * ```ts
 * safeFileNamePart("INV/2024\\07");              // "INV_2024_07"
 * safeFileNamePart("A B\u0000C");                // "A B_C"
 * safeFileNamePart('INV "3"', "linux");          // 'INV "3"'
 * safeFileNamePart('C:"x"|y?*<>', "windows");    // "C__x___y____"
 * ```
 */
export function safeFileNamePart(value: string, os: FileNameOs = Deno.build.os): string {
  return value.replace(os === "windows" ? UNSAFE_CHARS_WINDOWS : UNSAFE_CHARS, "_");
}

const encoder = new TextEncoder();
// One buffer for every cut: no part of a name ever needs more than the whole name's bytes.
const scratch = new Uint8Array(MAX_FILE_NAME_BYTES);

/**
 * Longest prefix of `value` that fits in `maxBytes` (at most {@link MAX_FILE_NAME_BYTES}) UTF-8
 * bytes, and its size. `encodeInto` stops before a code point that does not fit whole, so no UTF-8
 * sequence and no surrogate pair is ever split (a lone surrogate counts as U+FFFD, 3 bytes, as the
 * OS will be handed it).
 */
function cutUtf8(value: string, maxBytes: number): { text: string; bytes: number } {
  const { read, written } = encoder.encodeInto(value, scratch.subarray(0, Math.max(0, maxBytes)));
  return { text: value.slice(0, read), bytes: written };
}

/**
 * Builds a name from fixed text and variable parts, shortening the variable parts only when the
 * whole name would exceed {@link MAX_FILE_NAME_BYTES}. The byte budget is shared fairly: parts
 * are visited shortest first and each gets at most an equal share of what is left, so a short
 * part is kept whole and a long one does not starve the other; bytes a part does not use (or
 * loses to a code-point boundary) go to the parts after it.
 *
 * @param render joins the (possibly shortened) parts with the fixed text.
 * @param fixedBytes UTF-8 bytes of the fixed text.
 * @param os the OS whose rules {@link safeFileNamePart} applies.
 */
function fitName(
  parts: string[],
  fixedBytes: number,
  render: (parts: string[]) => string,
  os: FileNameOs,
): string {
  const safe = parts.map((part) => safeFileNamePart(part, os));
  // Fast path: 3 bytes per UTF-16 unit bounds the encoded size, so most names need no counting.
  let total = fixedBytes;
  for (const part of safe) total += part.length * 3;
  if (total <= MAX_FILE_NAME_BYTES) return render(safe);

  // Sizes are capped at the limit: a part that long is cut whatever the others are.
  const sizes = safe.map((part) => cutUtf8(part, MAX_FILE_NAME_BYTES).bytes);
  let remaining = MAX_FILE_NAME_BYTES - fixedBytes;
  if (sizes.reduce((a, b) => a + b, 0) <= remaining) return render(safe);

  const order = safe.map((_, i) => i).sort((a, b) => (sizes[a] ?? 0) - (sizes[b] ?? 0));
  const fitted = [...safe];
  order.forEach((index, position) => {
    const share = Math.floor(remaining / (order.length - position));
    const part = cutUtf8(safe[index] ?? "", share);
    fitted[index] = part.text;
    remaining -= part.bytes;
  });
  return render(fitted);
}

function checkIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 1) {
    throw new RangeError(`Row index must be a positive integer (1-based), got ${index}`);
  }
}

/**
 * PDF file name "<NNN> <invoice> <number>.pdf" (spec "PDF file"): the 1-based row index
 * zero-padded to 3 digits (longer indexes keep all their digits), the invoice value and the FCR
 * or container number, separated by single spaces. Both values are passed through
 * {@link safeFileNamePart} with the rules of `os`; if the name would exceed 255 UTF-8 bytes, the two values are shortened
 * (on code-point boundaries) so that it fits, still starting with the index and ending in ".pdf".
 *
 * @throws {RangeError} when `index` is not a positive integer.
 * @example
 * ```ts
 * pdfFileName(1, "INV-001", "FCR123");   // "001 INV-001 FCR123.pdf"
 * pdfFileName(1000, "INV/9", "MSCU1234"); // "1000 INV_9 MSCU1234.pdf"
 * pdfFileName(3, 'INV "3"', "MSCU9900003", "linux");   // '003 INV "3" MSCU9900003.pdf'
 * pdfFileName(3, 'INV "3"', "MSCU9900003", "windows"); // "003 INV _3_ MSCU9900003.pdf"
 * ```
 */
export function pdfFileName(
  index: number,
  invoice: string,
  number: string,
  os: FileNameOs = Deno.build.os,
): string {
  checkIndex(index);
  const prefix = String(index).padStart(3, "0");
  // Fixed text: prefix (ASCII digits), two spaces and ".pdf".
  return fitName(
    [invoice, number],
    prefix.length + 2 + 4,
    ([inv, num]) => `${prefix} ${inv} ${num}.pdf`,
    os,
  );
}

/**
 * The name of a PDF's MHTML archive beside it (`--archive mhtml`): the PDF's name with ".mhtml" for ".pdf", so
 * that it follows the PDF's name whatever the PDF's name is. When that would exceed 255 UTF-8 bytes (a PDF's
 * name within 2 bytes of the limit), the name before the extension is cut at its end on a character boundary.
 *
 * @example
 * ```ts
 * archiveFileName("001 INV-1 MSCU1234567.pdf"); // "001 INV-1 MSCU1234567.mhtml"
 * ```
 */
export function archiveFileName(pdfFile: string, os: FileNameOs = Deno.build.os): string {
  const stem = pdfFile.replace(/\.pdf$/, "");
  return fitName([stem], ".mhtml".length, ([name]) => `${name}.mhtml`, os);
}

/**
 * Hidden name ".<fileName>.<pid>.partial" that a file is written under before it is renamed to
 * `fileName` in the same folder. The process id keeps two runs writing the same PDF apart. When the
 * whole would exceed 255 UTF-8 bytes, `fileName` is cut at its end on a character boundary, so the
 * name is still unique per row (PDF names start with the row index).
 *
 * @example
 * ```ts
 * partialFileName("001 INV-1 MSCU1234567.pdf", 4711); // ".001 INV-1 MSCU1234567.pdf.4711.partial"
 * ```
 */
export function partialFileName(fileName: string, pid: number, os: FileNameOs = Deno.build.os): string {
  const suffix = `.${pid}.partial`;
  return fitName([fileName], 1 + suffix.length, ([name]) => `.${name}${suffix}`, os);
}

/**
 * Job B's temporary HTML file name "ctg_port_<job_id>_<index>_<container>.html" (spec Job B
 * step 3.4), `index` 1-based and not padded. Job id and container number are made safe and, if
 * needed, shortened like in {@link pdfFileName}.
 *
 * @throws {RangeError} when `index` is not a positive integer.
 * @example
 * ```ts
 * tempHtmlFileName("job-7", 3, "MSCU1234567"); // "ctg_port_job-7_3_MSCU1234567.html"
 * ```
 */
export function tempHtmlFileName(
  jobId: string,
  index: number,
  containerNumber: string,
  os: FileNameOs = Deno.build.os,
): string {
  checkIndex(index);
  const fixed = `ctg_port__${index}_.html`;
  return fitName(
    [jobId, containerNumber],
    fixed.length,
    ([job, container]) => `ctg_port_${job}_${index}_${container}.html`,
    os,
  );
}

/** Name of the form `<prefix><job_id><suffix>` with the job id made safe and length-limited. */
function jobFileName(prefix: string, jobId: string, suffix: string, os: FileNameOs): string {
  return fitName([jobId], prefix.length + suffix.length, ([job]) => `${prefix}${job}${suffix}`, os);
}

/**
 * Job A log upload name (spec "Log").
 * @example `shipmentLogFileName("42")` → `"shipment_tracking_42.log"`
 */
export function shipmentLogFileName(jobId: string, os: FileNameOs = Deno.build.os): string {
  return jobFileName("shipment_tracking_", jobId, ".log", os);
}

/**
 * Job B log upload name (spec "Log").
 * @example `portLogFileName("42")` → `"port_tracking_42.log"`
 */
export function portLogFileName(jobId: string, os: FileNameOs = Deno.build.os): string {
  return jobFileName("port_tracking_", jobId, ".log", os);
}

/**
 * Job B results CSV upload name (spec "Results CSV").
 * @example `resultsCsvFileName("42")` → `"port_tracking_results_42.csv"`
 */
export function resultsCsvFileName(jobId: string, os: FileNameOs = Deno.build.os): string {
  return jobFileName("port_tracking_results_", jobId, ".csv", os);
}

/**
 * Name of the lock file a run of either job holds in output_dir while it runs, so that a second run of the same
 * job id into the same folder is refused; removed at the run's end.
 * @example `runLockFileName("42")` → `"run_42.lock"`
 */
export function runLockFileName(jobId: string, os: FileNameOs = Deno.build.os): string {
  return jobFileName("run_", jobId, ".lock", os);
}

/**
 * Stop file name looked for inside output_dir (spec "Stop file"). A job id too long for a file
 * name is shortened here too; without that the operator could not create the file at all.
 * @example `stopFileName("42")` → `"stop_42.txt"`
 */
export function stopFileName(jobId: string, os: FileNameOs = Deno.build.os): string {
  return jobFileName("stop_", jobId, ".txt", os);
}
