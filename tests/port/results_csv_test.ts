import assert from "node:assert/strict";
import { parse } from "csv-parse/sync";
import { buildResultsCsv } from "../../lib/port/results_csv.ts";
import type { PortResult } from "../../lib/run/rows/row_result.ts";

const HEADER = "container_number,invoice_no,status,error,timestamp";
const TS = "2024-01-05T09:03:07.045";

Deno.test("buildResultsCsv", async (t) => {
  await t.step("no results: no CSV", () => {
    assert.equal(buildResultsCsv([]), undefined);
  });

  await t.step("header, rows in order, missing error empty, pdf_file not a column, \\n line ends", () => {
    const results: PortResult[] = [
      {
        container_number: "C1",
        invoice_no: "I1",
        status: "success",
        pdf_file: "001 I1 C1.pdf",
        timestamp: TS,
      },
      {
        container_number: "C2",
        invoice_no: "I2",
        status: "error",
        error: "Response too short",
        timestamp: TS,
      },
      { container_number: "C3", invoice_no: "I3", status: "success", timestamp: TS },
    ];
    assert.equal(
      buildResultsCsv(results),
      `${HEADER}\nC1,I1,success,,${TS}\nC2,I2,error,Response too short,${TS}\nC3,I3,success,,${TS}\n`,
    );
  });

  await t.step("an empty error string is an empty cell too", () => {
    assert.equal(
      buildResultsCsv([{
        container_number: "C",
        invoice_no: "I",
        status: "error",
        error: "",
        timestamp: TS,
      }]),
      `${HEADER}\nC,I,error,,${TS}\n`,
    );
  });

  await t.step("commas, quotes and line breaks are quoted and survive a round trip", () => {
    const results: PortResult[] = [
      {
        container_number: "C,1",
        invoice_no: 'INV "7"',
        status: "error",
        error: "line one\nline two\r\nthree\rfour",
        timestamp: TS,
      },
      {
        container_number: " spaced ",
        invoice_no: "請求書😀",
        status: "error",
        error: "<b>x</b>; y",
        timestamp: TS,
      },
    ];
    const text = buildResultsCsv(results) ?? "";
    assert.ok(text.includes(`"C,1","INV ""7""",error,"line one\nline two\r\nthree\rfour",${TS}\n`), text);
    const rows = parse(text) as string[][];
    assert.deepEqual(rows, [
      HEADER.split(","),
      ["C,1", 'INV "7"', "error", "line one\nline two\r\nthree\rfour", TS],
      [" spaced ", "請求書😀", "error", "<b>x</b>; y", TS],
    ]);
  });

  await t.step("no BOM, no CRLF outside quoted fields", () => {
    const text = buildResultsCsv([{
      container_number: "C",
      invoice_no: "I",
      status: "success",
      timestamp: TS,
    }]);
    assert.ok(text !== undefined);
    assert.notEqual(text.charCodeAt(0), 0xfeff);
    assert.ok(!text.includes("\r"));
    assert.ok(text.endsWith("\n"));
  });

  await t.step("100,000 results keep order and count", () => {
    const results: PortResult[] = Array.from({ length: 100_000 }, (_, i) => ({
      container_number: `C${i}`,
      invoice_no: `I${i}`,
      status: i % 2 ? "error" : "success",
      ...(i % 2 ? { error: `failed, row ${i}` } : {}),
      timestamp: TS,
    }));
    const lines = (buildResultsCsv(results) ?? "").split("\n");
    assert.equal(lines.length, 100_002); // header + rows + "" after the final \n
    assert.equal(lines[100_000], `C99999,I99999,error,"failed, row 99999",${TS}`);
  });
});
