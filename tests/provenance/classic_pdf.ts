/**
 * PDFs written by hand for the provenance tests: objects numbered from 1 with a classic cross-reference table
 * whose offsets are computed, and the reading of a PDF's last table back, to check the offsets an update wrote.
 *
 * @module
 */

const latin1 = new TextDecoder("latin1");

/**
 * A one-revision PDF of `objects` (object `i + 1` is `objects[i]`, generation 0) with a classic table, and the
 * trailer entries `trailer` (`/Size` is set).
 */
export function classicPdf(objects: readonly string[], trailer: string): Uint8Array {
  let text = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(text.length);
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const startXref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, "0")} 00000 n \n`;
  text += `trailer\n<</Size ${objects.length + 1} ${trailer}>>\nstartxref\n${startXref}\n%%EOF\n`;
  return new TextEncoder().encode(text);
}

/** The last cross-reference table of `pdf`: where it starts, and the offset of each object in use it lists. */
export function lastTable(pdf: Uint8Array): { startXref: number; offsets: Map<number, number> } {
  const text = latin1.decode(pdf);
  const startXref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  const table = text.slice(startXref, text.indexOf("trailer", startXref));
  const offsets = new Map<number, number>();
  let number = 0;
  for (const line of table.split(/\r?\n/).slice(1)) {
    const subsection = /^(\d+) (\d+)$/.exec(line.trim());
    if (subsection !== null) {
      number = Number(subsection[1]);
      continue;
    }
    const entry = /^(\d{10}) \d{5} ([nf])$/.exec(line.trim());
    if (entry === null) continue;
    if (entry[2] === "n") offsets.set(number, Number(entry[1]));
    number++;
  }
  return { startXref, offsets };
}
