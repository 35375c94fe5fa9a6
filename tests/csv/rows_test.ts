import assert from "node:assert/strict";
import {
  type CsvRows,
  parsePortCsv,
  parseShipmentCsv,
  readPortRows,
  readShipmentRows,
} from "../../lib/csv/rows.ts";

const encoder = new TextEncoder();
const JOB_A_MISSING = "CSV file must have an 'FCR Number' column and an 'INVOICE_NO' column; found columns: ";

/** A failed read: no rows, one-line error, no stack trace. */
function assertFailed<T>(result: CsvRows<T>, expected: string | RegExp): void {
  assert.deepEqual(result.rows, []);
  assert.ok(result.error !== undefined, "expected an error");
  if (typeof expected === "string") assert.equal(result.error, expected);
  else assert.match(result.error, expected);
  assert.doesNotMatch(result.error, /[\r\n]/, "error must be one line");
  assert.doesNotMatch(result.error, /\bat .*:\d+:\d+/, "error must not carry a stack trace");
}

function assertOk<T>(result: CsvRows<T>, rows: T[]): void {
  assert.equal(result.error, undefined, `unexpected error: ${result.error}`);
  assert.equal("error" in result, false, "error key must be absent on success");
  assert.deepEqual(result.rows, rows);
}

Deno.test("parseShipmentCsv (Job A rules)", async (t) => {
  await t.step("spec header names, cells trimmed", () => {
    assertOk(parseShipmentCsv("FCR Number,INVOICE_NO\n FCR1 , INV1 \nFCR2,INV2\n"), [
      { fcrNumber: "FCR1", invoiceNumber: "INV1" },
      { fcrNumber: "FCR2", invoiceNumber: "INV2" },
    ]);
  });

  await t.step("header names trimmed and matched case-insensitively, any column order", () => {
    assertOk(parseShipmentCsv("Notes,  invoice no  ,fcr_NUMBER\t\nx,INV1,FCR1\n"), [
      { fcrNumber: "FCR1", invoiceNumber: "INV1" },
    ]);
    assertOk(parseShipmentCsv("My FCR Number (ref),Invoice_No.\nF,I\n"), [{
      fcrNumber: "F",
      invoiceNumber: "I",
    }]);
  });

  await t.step("first matching header wins", () => {
    assertOk(parseShipmentCsv("FCR Number,Old FCR Number,Invoice No,Invoice Note\nA,B,C,D\n"), [
      { fcrNumber: "A", invoiceNumber: "C" },
    ]);
  });

  await t.step("duplicate header names: first column wins", () => {
    assertOk(parseShipmentCsv("FCR Number,INVOICE_NO,FCR Number\nfirst,INV,second\n"), [
      { fcrNumber: "first", invoiceNumber: "INV" },
    ]);
  });

  await t.step("'Invoice Number' lacks \"no\" and does not count as the invoice column", () => {
    assertFailed(
      parseShipmentCsv("FCR Number,Invoice Number\nF,I\n"),
      `${JOB_A_MISSING}FCR Number, Invoice Number`,
    );
  });

  await t.step("missing columns: exact message listing trimmed found names", () => {
    assertFailed(parseShipmentCsv(" fcr , invoice_no \nF,I\n"), `${JOB_A_MISSING}fcr, invoice_no`);
    assertFailed(parseShipmentCsv("FCR Number\nF\n"), `${JOB_A_MISSING}FCR Number`);
    assertFailed(parseShipmentCsv("a,,b\n"), `${JOB_A_MISSING}a, "", b`);
  });

  await t.step("rows kept only when both values are non-empty after trimming", () => {
    const text = "FCR Number,INVOICE_NO\nF1,I1\nF2,\n,I3\n  ,  \nF5,\t\n\u00a0F6\u00a0,I6\n";
    assertOk(parseShipmentCsv(text), [
      { fcrNumber: "F1", invoiceNumber: "I1" },
      { fcrNumber: "F6", invoiceNumber: "I6" },
    ]);
  });

  await t.step("header only gives no rows and no error", () => {
    assertOk(parseShipmentCsv("FCR Number,INVOICE_NO\n"), []);
    assertOk(parseShipmentCsv("FCR Number,INVOICE_NO"), []);
  });

  await t.step("empty text is an error naming the missing header", () => {
    assertFailed(parseShipmentCsv(""), "CSV file is empty: it has no header row");
    assertFailed(parseShipmentCsv("\n\r\n\n"), "CSV file is empty: it has no header row");
    assertFailed(parseShipmentCsv("\ufeff"), "CSV file is empty: it has no header row");
    assertFailed(parseShipmentCsv("", "in/a.csv"), "in/a.csv is empty: it has no header row");
  });
});

Deno.test("parsePortCsv (Job B rules)", async (t) => {
  await t.step("exact column names, cells trimmed, extra columns ignored", () => {
    assertOk(parsePortCsv("id,invoice_no,container_number\n1, INV1 , MSCU1 \n"), [
      { containerNumber: "MSCU1", invoiceNumber: "INV1" },
    ]);
  });

  await t.step("names are case-sensitive: exact message with missing, required and found", () => {
    assertFailed(
      parsePortCsv("Container_Number,invoice_no\nC,I\n"),
      "CSV file is missing required column(s): container_number; required: container_number, invoice_no; " +
        "found: Container_Number, invoice_no",
    );
    assertFailed(
      parsePortCsv("container,invoice\n"),
      "CSV file is missing required column(s): container_number, invoice_no; required: container_number, " +
        "invoice_no; found: container, invoice",
    );
    assertFailed(
      parsePortCsv("container_number,INVOICE_NO\n"),
      /missing required column\(s\): invoice_no;.*found: container_number, INVOICE_NO$/,
    );
  });

  await t.step("spelling variants used by Job A are not accepted", () => {
    assertFailed(
      parsePortCsv("container number,invoice no\nC,I\n"),
      /missing required column\(s\): container_number, invoice_no;/,
    );
  });

  await t.step("whitespace around header names is ignored (documented leniency)", () => {
    assertOk(parsePortCsv("container_number, invoice_no\nC1,I1\n"), [{
      containerNumber: "C1",
      invoiceNumber: "I1",
    }]);
    assertOk(parsePortCsv(" container_number\t,\tinvoice_no \nC1,I1\n"), [{
      containerNumber: "C1",
      invoiceNumber: "I1",
    }]);
  });

  await t.step("duplicate header names: first column wins", () => {
    assertOk(parsePortCsv("container_number,invoice_no,container_number,invoice_no\nC1,I1,C2,I2\n"), [
      { containerNumber: "C1", invoiceNumber: "I1" },
    ]);
  });

  await t.step("rows kept only when both values are non-empty", () => {
    assertOk(parsePortCsv("container_number,invoice_no\nC1,\n,I2\n \t, \nC4,I4\n"), [
      { containerNumber: "C4", invoiceNumber: "I4" },
    ]);
  });

  await t.step("header only and empty text", () => {
    assertOk(parsePortCsv("container_number,invoice_no\r\n"), []);
    assertFailed(parsePortCsv(""), "CSV file is empty: it has no header row");
  });

  await t.step("a header name with a line break is shown escaped; message stays one line", () => {
    assertFailed(parsePortCsv('"contai\nner",invoice_no\n'), /found: contai\\nner, invoice_no$/);
  });
});

Deno.test("CSV syntax handled by both parsers", async (t) => {
  await t.step("UTF-8 BOM before the header", () => {
    assertOk(parseShipmentCsv("\ufeffFCR Number,INVOICE_NO\nF,I\n"), [{
      fcrNumber: "F",
      invoiceNumber: "I",
    }]);
    assertOk(parsePortCsv("\ufeffcontainer_number,invoice_no\nC,I\n"), [{
      containerNumber: "C",
      invoiceNumber: "I",
    }]);
  });

  await t.step("CRLF, LF and a missing final line end", () => {
    assertOk(parsePortCsv("container_number,invoice_no\r\nC1,I1\r\nC2,I2"), [
      { containerNumber: "C1", invoiceNumber: "I1" },
      { containerNumber: "C2", invoiceNumber: "I2" },
    ]);
  });

  await t.step("quoted fields with commas, doubled quotes and line breaks", () => {
    const text = 'container_number,invoice_no\r\n"C,1","INV ""A"""\n"C2","line1\r\nline2"\n';
    assertOk(parsePortCsv(text), [
      { containerNumber: "C,1", invoiceNumber: 'INV "A"' },
      { containerNumber: "C2", invoiceNumber: "line1\r\nline2" },
    ]);
  });

  await t.step("quoted header names", () => {
    assertOk(parseShipmentCsv('"FCR Number","INVOICE_NO"\nF,I\n'), [{ fcrNumber: "F", invoiceNumber: "I" }]);
  });

  await t.step("a stray quote inside an unquoted field is kept as text", () => {
    assertOk(parsePortCsv('container_number,invoice_no\nC"1,5" pipe\n'), [
      { containerNumber: 'C"1', invoiceNumber: '5" pipe' },
    ]);
  });

  await t.step("ragged rows: short rows have empty cells, long rows are fine", () => {
    const text = "container_number,x,invoice_no\nC1\nC2,x\nC3,x,I3,extra,more\nC4,x,I4\n";
    assertOk(parsePortCsv(text), [
      { containerNumber: "C3", invoiceNumber: "I3" },
      { containerNumber: "C4", invoiceNumber: "I4" },
    ]);
  });

  await t.step("blank lines are skipped, also before the header", () => {
    assertOk(parsePortCsv("\n\ncontainer_number,invoice_no\n\nC1,I1\n\r\n\nC2,I2\n\n"), [
      { containerNumber: "C1", invoiceNumber: "I1" },
      { containerNumber: "C2", invoiceNumber: "I2" },
    ]);
  });

  await t.step("an unclosed quote is a one-line syntax error naming the source", () => {
    assertFailed(
      parsePortCsv('container_number,invoice_no\n"C1,I1\nC2,I2\n', "data/in.csv"),
      /^data\/in\.csv is not valid CSV: /,
    );
    assertFailed(
      parseShipmentCsv('FCR Number,INVOICE_NO\n"F'),
      /^CSV file is not valid CSV: Quote Not Closed/,
    );
  });

  await t.step("non-ASCII values pass through unchanged", () => {
    assertOk(parsePortCsv("container_number,invoice_no\nКОНТ-1,請求書😀\n"), [
      { containerNumber: "КОНТ-1", invoiceNumber: "請求書😀" },
    ]);
  });

  await t.step("100,000 rows parse, every one kept (their speed is deno bench's: hot_paths_bench.ts)", () => {
    const lines = ["FCR Number,INVOICE_NO,Notes"];
    for (let i = 0; i < 100_000; i++) lines.push(`FCR${i},INV-${i},"note, ${i}"`);
    const result = parseShipmentCsv(lines.join("\r\n"));
    assert.equal(result.rows.length, 100_000);
    assert.deepEqual(result.rows[99_999], { fcrNumber: "FCR99999", invoiceNumber: "INV-99999" });
  });
});

Deno.test("readShipmentRows / readPortRows (files)", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "csv_rows_test_" });
  const write = async (name: string, data: string | Uint8Array) => {
    const path = `${dir}/${name}`;
    await Deno.writeFile(path, typeof data === "string" ? encoder.encode(data) : data);
    return path;
  };
  try {
    await t.step("reads a file, both jobs", async () => {
      const a = await write("a.csv", "FCR Number,INVOICE_NO\nF1,I1\n");
      assertOk(await readShipmentRows(a), [{ fcrNumber: "F1", invoiceNumber: "I1" }]);
      const b = await write("b.csv", "container_number,invoice_no\nC1,I1\n");
      assertOk(await readPortRows(b), [{ containerNumber: "C1", invoiceNumber: "I1" }]);
    });

    await t.step("extension is case-insensitive", async () => {
      const path = await write("UPPER.CSV", "container_number,invoice_no\nC1,I1\n");
      assertOk(await readPortRows(path), [{ containerNumber: "C1", invoiceNumber: "I1" }]);
      const mixed = await write("mixed.Csv", "FCR Number,INVOICE_NO\nF,I\n");
      assertOk(await readShipmentRows(mixed), [{ fcrNumber: "F", invoiceNumber: "I" }]);
    });

    await t.step("other extensions are rejected before any read", async () => {
      const txt = await write("data.txt", "container_number,invoice_no\nC1,I1\n");
      assertFailed(await readPortRows(txt), `Only CSV files are supported: ${txt}`);
      assertFailed(await readShipmentRows(txt), `Only CSV files are supported: ${txt}`);
      // A missing .xlsx reports the extension, not "file not found": nothing was read.
      const missing = `${dir}/nowhere.xlsx`;
      assertFailed(await readShipmentRows(missing), `Only CSV files are supported: ${missing}`);
      assertFailed(await readPortRows(`${dir}/csv`), `Only CSV files are supported: ${dir}/csv`);
      assertFailed(await readPortRows(`${dir}/a.csv.bak`), /^Only CSV files are supported: /);
    });

    await t.step("missing file", async () => {
      const path = `${dir}/missing.csv`;
      assertFailed(await readShipmentRows(path), `Cannot read ${path}: file not found`);
      assertFailed(await readPortRows(path), `Cannot read ${path}: file not found`);
    });

    await t.step("a directory as input", async () => {
      const path = `${dir}/folder.csv`;
      await Deno.mkdir(path);
      assertFailed(await readPortRows(path), `${path} is a directory, not a CSV file`);
      assertFailed(await readShipmentRows(path), `${path} is a directory, not a CSV file`);
    });

    await t.step("empty file and header-only file", async () => {
      const empty = await write("empty.csv", "");
      assertFailed(await readPortRows(empty), `${empty} is empty: it has no header row`);
      assertFailed(await readShipmentRows(empty), `${empty} is empty: it has no header row`);
      const bomOnly = await write("bom_only.csv", new Uint8Array([0xef, 0xbb, 0xbf]));
      assertFailed(await readPortRows(bomOnly), `${bomOnly} is empty: it has no header row`);
      const headerOnly = await write("header.csv", "container_number,invoice_no\r\n");
      assertOk(await readPortRows(headerOnly), []);
    });

    await t.step("UTF-8 BOM and CRLF from a spreadsheet export", async () => {
      const path = await write("excel.csv", "\ufeffFCR Number,INVOICE_NO\r\nF1,I1\r\n");
      assert.deepEqual([...(await Deno.readFile(path)).subarray(0, 3)], [0xef, 0xbb, 0xbf]);
      assertOk(await readShipmentRows(path), [{ fcrNumber: "F1", invoiceNumber: "I1" }]);
    });

    await t.step("bytes that are not UTF-8: message gives the offset", async () => {
      const header = "container_number,invoice_no\n"; // 28 bytes
      const latin1 = new Uint8Array([...encoder.encode(header), 0x43, 0x61, 0x66, 0xe9, 0x2c, 0x49, 0x0a]);
      const path = await write("latin1.csv", latin1);
      assertFailed(await readPortRows(path), `${path} is not UTF-8 text (invalid byte near offset 31)`);
      assertFailed(await readShipmentRows(path), `${path} is not UTF-8 text (invalid byte near offset 31)`);
      // The offset is where the bad sequence starts (the é above, not the comma after it).
      // Overlong encoding of "/" (C0 AF) and an encoded surrogate (ED A0 80) are not UTF-8 either.
      const overlong = await write("overlong.csv", new Uint8Array([0x61, 0xc0, 0xaf]));
      assertFailed(
        await readPortRows(overlong),
        `${overlong} is not UTF-8 text (invalid byte near offset 1)`,
      );
      const surrogate = await write("surrogate.csv", new Uint8Array([0x61, 0x62, 0xed, 0xa0, 0x80]));
      assertFailed(
        await readPortRows(surrogate),
        `${surrogate} is not UTF-8 text (invalid byte near offset 2)`,
      );
      const truncated = await write("truncated.csv", new Uint8Array([0x61, 0xe2, 0x82]));
      assertFailed(
        await readPortRows(truncated),
        `${truncated} is not UTF-8 text (invalid byte near offset 1)`,
      );
    });

    await t.step("UTF-16 export is named as such", async () => {
      const utf16 = new Uint8Array([0xff, 0xfe, 0x61, 0x00, 0x2c, 0x00, 0x62, 0x00]);
      const path = await write("utf16.csv", utf16);
      assertFailed(
        await readPortRows(path),
        /^.*utf16\.csv is not UTF-8 text \(it starts with a UTF-16 byte order mark/,
      );
    });

    await t.step({
      name: "chmod 000 file: permission denied",
      // root bypasses file modes (CAP_DAC_OVERRIDE), so the file would read fine and the step
      // would prove nothing; the two steps below cover unreadable files for root as well.
      ignore: Deno.build.os === "windows" || Deno.uid() === 0,
      fn: async () => {
        const path = await write("locked.csv", "container_number,invoice_no\nC,I\n");
        await Deno.chmod(path, 0o000);
        assertFailed(await readPortRows(path), `Cannot read ${path}: permission denied`);
      },
    });

    await t.step({
      name: "unreadable for any user: symlink loop gives the OS reason",
      ignore: Deno.build.os === "windows",
      fn: async () => {
        const a = `${dir}/loop_a.csv`;
        const b = `${dir}/loop_b.csv`;
        await Deno.symlink(b, a);
        await Deno.symlink(a, b);
        assertFailed(await readShipmentRows(a), `Cannot read ${a}: too many levels of symbolic links`);
        assertFailed(await readPortRows(a), `Cannot read ${a}: too many levels of symbolic links`);
      },
    });

    await t.step("unreadable because Deno read permission is denied (child process)", async () => {
      const path = await write("denied.csv", "container_number,invoice_no\nC,I\n");
      const moduleUrl = new URL("../../lib/csv/rows.ts", import.meta.url).href;
      const script = await write(
        "child.ts",
        `import { readPortRows } from ${JSON.stringify(moduleUrl)};\n` +
          `console.log(JSON.stringify(await readPortRows(${JSON.stringify(path)})));\n`,
      );
      // A sanity read of the same file from the child first would be circular; instead the
      // parent proves the file is readable, so the child's failure can only be the denial.
      assertOk(await readPortRows(path), [{ containerNumber: "C", invoiceNumber: "I" }]);
      const output = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--no-prompt",
          `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
          "--allow-read",
          `--deny-read=${path}`,
          script,
        ],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(output.stderr);
      assert.equal(output.code, 0, stderr);
      const result = JSON.parse(new TextDecoder().decode(output.stdout)) as CsvRows<unknown>;
      assertFailed(result, `Cannot read ${path}: permission denied (no Deno read permission for this path)`);
    });

    await t.step("a path with a line break stays on one line in the message", async () => {
      const path = `${dir}/odd\nname.txt`;
      assertFailed(await readPortRows(path), `Only CSV files are supported: ${dir}/odd\\nname.txt`);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
