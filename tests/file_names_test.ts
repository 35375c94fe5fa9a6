import assert from "node:assert/strict";
import {
  archiveFileName,
  type FileNameOs,
  MAX_FILE_NAME_BYTES,
  partialFileName,
  pdfFileName,
  portLogFileName,
  resultsCsvFileName,
  safeFileNamePart,
  shipmentLogFileName,
  stopFileName,
  tempHtmlFileName,
} from "../lib/file_names.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

/**
 * Windows' reserved device names, which it refuses with any extension ("NUL.txt") and with trailing
 * spaces before it ("NUL .txt"); superscript digits count too.
 */
const RESERVED =
  /^(CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9\u00b9\u00b2\u00b3]|LPT[0-9\u00b9\u00b2\u00b3])$/i;

/** The characters Windows refuses in names, which Linux and macOS hold. */
const WINDOWS_REFUSES = ["<", ">", ":", '"', "|", "?", "*"];

/**
 * Everything that must hold for any name, whatever the input, on every OS; on Windows (`os`) also none
 * of the characters Windows refuses.
 */
function assertSafeName(name: string, os: FileNameOs = Deno.build.os): void {
  assert.ok(name !== "." && name !== "..", `name is a dot entry: ${name}`);
  assert.ok(!/[/\\]/.test(name), `name has a separator: ${JSON.stringify(name)}`);
  if (os === "windows") {
    assert.ok(!/[<>:"|?*]/.test(name), `name has a character Windows refuses: ${JSON.stringify(name)}`);
  }
  // The point of this check is control characters, hence the lint exception.
  // deno-lint-ignore no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/;
  assert.ok(!control.test(name), `name has a control character: ${JSON.stringify(name)}`);
  assert.ok(bytes(name) <= MAX_FILE_NAME_BYTES, `name is ${bytes(name)} bytes`);
  assert.ok(!/[. ]$/.test(name), `name ends in a dot or a space (Windows drops it): ${JSON.stringify(name)}`);
  const stem = name.split(".")[0]!.trimEnd();
  assert.ok(!RESERVED.test(stem), `name is a Windows device name: ${JSON.stringify(name)}`);
}

/** Fully well-formed: no lone surrogates (a pair was never cut in half). */
function assertWellFormed(name: string): void {
  assert.ok(name.isWellFormed(), `lone surrogate in ${JSON.stringify(name)}`);
  assert.ok(!new TextDecoder().decode(new TextEncoder().encode(name)).includes("\ufffd"));
}

Deno.test("safeFileNamePart", async (t) => {
  await t.step("separators become _, on every OS", () => {
    for (const os of ["linux", "darwin", "windows"] as const) {
      assert.equal(safeFileNamePart("a/b\\c", os), "a_b_c");
    }
    assert.equal(safeFileNamePart("a/b\\c"), "a_b_c");
    assert.equal(safeFileNamePart("/"), "_");
    assert.equal(safeFileNamePart("\\"), "_");
    assert.equal(safeFileNamePart("../../etc/passwd"), ".._.._etc_passwd");
  });

  await t.step("every control character (C0, DEL, C1) becomes _, on every OS", () => {
    for (let code = 0; code <= 0x9f; code++) {
      if (code > 0x1f && code < 0x7f) continue;
      const ch = String.fromCharCode(code);
      for (const os of ["linux", "darwin", "windows"] as const) {
        assert.equal(safeFileNamePart(`a${ch}b`, os), "a_b", `U+${code.toString(16)} on ${os}`);
      }
    }
  });

  await t.step("on Windows, each character Windows refuses in names becomes _", () => {
    for (const ch of WINDOWS_REFUSES) assert.equal(safeFileNamePart(`a${ch}b`, "windows"), "a_b", ch);
    assert.equal(
      safeFileNamePart("colon: star* question? pipe| lt< gt>", "windows"),
      "colon_ star_ question_ pipe_ lt_ gt_",
    );
    assert.equal(safeFileNamePart(`quotes "double" and 'single'`, "windows"), "quotes _double_ and 'single'");
    assert.equal(safeFileNamePart("<script>x</script>", "windows"), "_script_x__script_");
    assert.equal(safeFileNamePart("C:\\x", "windows"), "C__x");
  });

  await t.step("on Linux and macOS, those characters stay as they are", () => {
    for (const os of ["linux", "darwin"] as const) {
      for (const ch of WINDOWS_REFUSES) assert.equal(safeFileNamePart(`a${ch}b`, os), `a${ch}b`, ch);
      assert.equal(safeFileNamePart('INV "3"', os), 'INV "3"');
      assert.equal(safeFileNamePart("A<B>:C|D?*", os), "A<B>:C|D?*");
      assert.equal(safeFileNamePart("<script>x</script>", os), "<script>x<_script>");
      assert.equal(safeFileNamePart("C:\\x", os), "C:_x");
    }
  });

  await t.step("the default is the OS the job runs on", () => {
    assert.equal(safeFileNamePart("A<B>:C|D?*"), safeFileNamePart("A<B>:C|D?*", Deno.build.os));
  });

  await t.step("nothing else changes", () => {
    const untouched = [
      "",
      "..",
      ".",
      "INV-001",
      "a b  c",
      " leading and trailing ",
      "trailing dots...",
      "apostrophe's, commas; brackets [x] (y) {z} #1 %2F & + = @ ! ~ ` ^ $",
      "\u00a0nbsp\u00a0",
      "Ünïcödé 請求書 😀",
      "CON",
      "nul",
    ];
    for (const value of untouched) {
      for (const os of ["linux", "darwin", "windows"] as const) {
        assert.equal(safeFileNamePart(value, os), value);
      }
    }
  });
});

Deno.test("pdfFileName", async (t) => {
  await t.step("spec name, index zero-padded to 3 digits", () => {
    assert.equal(pdfFileName(1, "INV-001", "FCR123"), "001 INV-001 FCR123.pdf");
    assert.equal(pdfFileName(42, "I", "N"), "042 I N.pdf");
    assert.equal(pdfFileName(999, "I", "N"), "999 I N.pdf");
    assert.equal(pdfFileName(1000, "I", "N"), "1000 I N.pdf");
    assert.equal(pdfFileName(123456, "I", "N"), "123456 I N.pdf");
  });

  await t.step("index must be a positive integer", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity]) {
      assert.throws(() => pdfFileName(bad, "I", "N"), RangeError);
    }
  });

  await t.step("the spec's names on Linux and macOS; the Windows characters become _ on Windows", () => {
    for (const os of ["linux", "darwin"] as const) {
      assert.equal(pdfFileName(3, 'INV "3"', "MSCU9900003", os), '003 INV "3" MSCU9900003.pdf');
      assert.equal(pdfFileName(4, "INV-4", "A<B>:C|D?*", os), "004 INV-4 A<B>:C|D?*.pdf");
    }
    assert.equal(pdfFileName(3, 'INV "3"', "MSCU9900003", "windows"), "003 INV _3_ MSCU9900003.pdf");
    assert.equal(pdfFileName(4, "INV-4", "A<B>:C|D?*", "windows"), "004 INV-4 A_B__C_D__.pdf");
    assert.equal(tempHtmlFileName("J", 4, "A<B>:C|D?*", "windows"), "ctg_port_J_4_A_B__C_D__.html");
    assert.equal(tempHtmlFileName("J", 4, "A<B>:C|D?*", "linux"), "ctg_port_J_4_A<B>:C|D?*.html");
    assert.equal(stopFileName("a:b", "windows"), "stop_a_b.txt");
    assert.equal(stopFileName("a:b", "linux"), "stop_a:b.txt");
  });

  await t.step("hostile values are made safe, everything else kept", () => {
    assert.equal(pdfFileName(1, "..", ".."), "001 .. ...pdf");
    assert.equal(pdfFileName(2, "INV/2024", "..\\..\\x"), "002 INV_2024 .._.._x.pdf");
    assert.equal(pdfFileName(3, "a\nb", "c\u0000d\u007f\u0085"), "003 a_b c_d__.pdf");
    assert.equal(pdfFileName(4, '"q"', "<script>", "windows"), "004 _q_ _script_.pdf");
    assert.equal(pdfFileName(4, '"q"', "<script>", "linux"), '004 "q" <script>.pdf');
    assert.equal(pdfFileName(5, "  ", " x "), "005     x .pdf");
    assert.equal(pdfFileName(6, "", ""), "006  .pdf");
    for (const name of [pdfFileName(1, "/", "/"), pdfFileName(1, "..", "/..")]) assertSafeName(name);
  });

  await t.step("a name of exactly 255 bytes is kept, one more byte shortens", () => {
    const invoice = "I".repeat(100);
    const exact = "N".repeat(255 - 3 - 2 - 4 - invoice.length); // "001", 2 spaces, ".pdf"
    assert.equal(pdfFileName(1, invoice, exact), `001 ${invoice} ${exact}.pdf`);
    const over = pdfFileName(1, invoice, `${exact}N`);
    assert.equal(bytes(over), 255);
    assert.equal(over, `001 ${invoice} ${exact}.pdf`);
  });

  await t.step("300-char ASCII values: both shortened fairly, exactly 255 bytes", () => {
    const name = pdfFileName(7, "I".repeat(300), "N".repeat(300));
    assert.equal(bytes(name), 255);
    assert.match(name, /^007 I+ N+\.pdf$/);
    const [, inv = "", num = ""] = name.slice(0, -4).split(" ");
    assert.ok(Math.abs(inv.length - num.length) <= 1, `${inv.length} vs ${num.length}`);
  });

  await t.step("a short value is kept whole when the other one is long", () => {
    const name = pdfFileName(8, "INV-8", "C".repeat(300));
    assert.ok(name.startsWith("008 INV-8 C"));
    assert.ok(name.endsWith("C.pdf"));
    assert.equal(bytes(name), 255);
    const reverse = pdfFileName(8, "I".repeat(300), "MSCU1234567");
    assert.ok(reverse.endsWith(" MSCU1234567.pdf"));
    assert.equal(bytes(reverse), 255);
  });

  await t.step("300-char multi-byte values never cut a sequence or a surrogate pair", () => {
    const samples = ["é", "請", "😀", "a😀", "é請😀x"];
    for (const a of samples) {
      for (const b of samples) {
        for (const index of [1, 12, 1000, 1234567]) {
          const name = pdfFileName(index, a.repeat(300), b.repeat(300));
          assertSafeName(name);
          assertWellFormed(name);
          assert.ok(name.startsWith(`${String(index).padStart(3, "0")} `));
          assert.ok(name.endsWith(".pdf"));
          // Close to the limit: at most one code point (4 bytes) per part was left unused.
          assert.ok(bytes(name) > 255 - 8, `${bytes(name)} bytes for ${a}/${b}`);
          const [, inv = "", num = ""] = name.slice(0, -4).split(" ");
          assert.ok(a.repeat(300).startsWith(inv) && inv.length > 0);
          assert.ok(b.repeat(300).startsWith(num) && num.length > 0);
        }
      }
    }
  });

  await t.step("unsafe characters in long values are replaced before shortening", () => {
    const name = pdfFileName(1, "/".repeat(300), "\\\n".repeat(150));
    assertSafeName(name);
    assert.match(name, /^001 _+ _+\.pdf$/);
  });

  await t.step("the OS accepts the names (written to a temp folder)", async () => {
    const dir = await Deno.makeTempDir({ prefix: "file_names_test_" });
    try {
      const names = [
        pdfFileName(1, "😀".repeat(300), "請".repeat(300)),
        pdfFileName(2, "../..", "/etc/passwd"),
        pdfFileName(3, "é".repeat(300), "x"),
        tempHtmlFileName("j/".repeat(200), 4, "😀".repeat(300)),
        stopFileName("s".repeat(400)),
        partialFileName(pdfFileName(5, "請".repeat(90), "MSCU1"), 4_294_967_295),
        partialFileName(pdfFileName(6, 'a<b>c:d"e|f?g*h', "CON"), 1),
      ];
      for (const name of names) await Deno.writeTextFile(`${dir}/${name}`, "x");
      const listed = [];
      for await (const entry of Deno.readDir(dir)) listed.push(entry.name);
      assert.deepEqual(listed.sort(), [...names].sort());
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("job file names", async (t) => {
  await t.step("spec names for ordinary job ids", () => {
    assert.equal(shipmentLogFileName("job-42"), "shipment_tracking_job-42.log");
    assert.equal(portLogFileName("job-42"), "port_tracking_job-42.log");
    assert.equal(resultsCsvFileName("job-42"), "port_tracking_results_job-42.csv");
    assert.equal(stopFileName("job-42"), "stop_job-42.txt");
    assert.equal(tempHtmlFileName("job-42", 1, "MSCU1234567"), "ctg_port_job-42_1_MSCU1234567.html");
    assert.equal(tempHtmlFileName("job-42", 1000, "C"), "ctg_port_job-42_1000_C.html");
  });

  await t.step("job id and container number are made safe", () => {
    assert.equal(stopFileName("../x"), "stop_.._x.txt");
    assert.equal(shipmentLogFileName("a/b\\c"), "shipment_tracking_a_b_c.log");
    assert.equal(portLogFileName(".."), "port_tracking_...log");
    assert.equal(resultsCsvFileName("\r\n"), "port_tracking_results___.csv");
    assert.equal(tempHtmlFileName("../j", 2, "C/1\t"), "ctg_port_.._j_2_C_1_.html");
    assert.equal(stopFileName(""), "stop_.txt");
  });

  await t.step("temp HTML index is unpadded and must be positive", () => {
    assert.equal(tempHtmlFileName("j", 7, "C"), "ctg_port_j_7_C.html");
    assert.throws(() => tempHtmlFileName("j", 0, "C"), RangeError);
  });

  await t.step("long values keep every name within 255 bytes", () => {
    const hostile = ["x".repeat(300), "😀".repeat(300), "/\\..\u0000".repeat(100), "é請".repeat(200)];
    for (const value of hostile) {
      const names = [
        shipmentLogFileName(value),
        portLogFileName(value),
        resultsCsvFileName(value),
        stopFileName(value),
        tempHtmlFileName(value, 12, value),
        tempHtmlFileName("job", 12, value),
      ];
      for (const name of names) {
        assertSafeName(name);
        assertWellFormed(name);
      }
      assert.ok(stopFileName(value).startsWith("stop_") && stopFileName(value).endsWith(".txt"));
      assert.ok(tempHtmlFileName("job", 12, value).startsWith("ctg_port_job_12_"));
      assert.ok(tempHtmlFileName(value, 12, value).endsWith(".html"));
    }
  });

  await t.step("fuzz: random hostile values always give safe names", () => {
    const alphabet = [
      "/",
      "\\",
      ".",
      " ",
      "\u0000",
      "\n",
      "\u007f",
      "\u0085",
      "a",
      "é",
      "請",
      "😀",
      '"',
      "<",
      ":",
      "?",
      "*",
      "|",
      "CON",
      "COM1",
    ];
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const value = () =>
      Array.from(
        { length: Math.floor(random() * 400) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      )
        .join("");
    for (let i = 0; i < 300; i++) {
      const [a, b] = [value(), value()];
      for (const os of ["linux", "windows"] as const) {
        const pdf = pdfFileName(i + 1, a, b, os);
        for (
          const name of [
            pdf,
            partialFileName(pdf, i * 15_000_000, os),
            tempHtmlFileName(a, i + 1, b, os),
            stopFileName(a, os),
          ]
        ) {
          assertSafeName(name, os);
          assertWellFormed(name);
        }
      }
    }
  });
});

Deno.test("partialFileName", async (t) => {
  await t.step("the PDF name, the process id and .partial, hidden", () => {
    assert.equal(
      partialFileName("001 INV-1 MSCU1234567.pdf", 4711),
      ".001 INV-1 MSCU1234567.pdf.4711.partial",
    );
  });

  await t.step("within 255 bytes for any PDF name, the largest process ids included", () => {
    // 90 CJK characters: 270 bytes of invoice. Cutting by UTF-16 units (200) left 600-byte names.
    for (
      const invoice of ["請".repeat(75), "請".repeat(90), "😀".repeat(300), "é".repeat(300), "I".repeat(300)]
    ) {
      const pdf = pdfFileName(1, invoice, "MSCU1234567");
      for (const pid of [1, 4_194_304, 4_294_967_295]) {
        const name = partialFileName(pdf, pid);
        assertSafeName(name);
        assertWellFormed(name);
        assert.ok(name.startsWith(".001 ") && name.endsWith(`.${pid}.partial`), name);
        assert.ok(pdf.startsWith(name.slice(1, -`.${pid}.partial`.length)));
      }
    }
  });

  await t.step("names that fit are kept whole", () => {
    const pdf = pdfFileName(1, "請".repeat(75), "C1"); // 236 bytes
    assert.equal(partialFileName(pdf, 42), `.${pdf}.42.partial`);
  });
});

Deno.test("archiveFileName", async (t) => {
  await t.step("the PDF's name with .mhtml", () => {
    assert.equal(archiveFileName("001 INV-1 MSCU1234567.pdf"), "001 INV-1 MSCU1234567.mhtml");
    assert.equal(archiveFileName('003 INV "3" MSCU9900003.pdf', "linux"), '003 INV "3" MSCU9900003.mhtml');
  });

  await t.step("within 255 bytes for any PDF name, cut at its end on a character boundary", () => {
    for (
      const invoice of ["請".repeat(75), "請".repeat(90), "😀".repeat(300), "é".repeat(300), "I".repeat(300)]
    ) {
      for (const number of ["MSCU1234567", "請".repeat(90), "😀"]) {
        const pdf = pdfFileName(1, invoice, number);
        const name = archiveFileName(pdf);
        assertSafeName(name);
        assertWellFormed(name);
        assert.ok(bytes(name) <= MAX_FILE_NAME_BYTES, name);
        assert.ok(name.endsWith(".mhtml") && name.startsWith("001 "), name);
        // The PDF's name before its extension, whole or cut at its end by the 2 bytes ".mhtml" adds.
        assert.ok(pdf.startsWith(name.slice(0, -".mhtml".length)), name);
        assert.ok(bytes(pdf) - 4 - (bytes(name) - 6) <= 2 + 3, name);
        // Its own partial name fits too.
        assertSafeName(partialFileName(name, 4_294_967_295));
      }
    }
  });

  await t.step("names that fit are kept whole", () => {
    const pdf = pdfFileName(1, "I".repeat(120), "C".repeat(120)); // 249 bytes: 251 as .mhtml
    assert.equal(archiveFileName(pdf), pdf.replace(/\.pdf$/, ".mhtml"));
  });
});

Deno.test("no name can be a Windows device name or end in a dot or a space", async (t) => {
  // Every name has a fixed prefix ("NNN ", "ctg_port_", "stop_", "port_tracking_", "shipment_tracking_",
  // ".") and a fixed suffix (".pdf", ".mhtml", ".html", ".log", ".csv", ".txt", ".partial"): whatever the
  // values, the part before the first dot never is one of these names and the last character is a letter.
  const devices = [
    "CON",
    "PRN",
    "AUX",
    "NUL",
    "CONIN$",
    "CONOUT$",
    "COM1",
    "COM9",
    "LPT1",
    "COM\u00b9",
    "lpt3",
  ];
  const variants = devices.flatMap((d) => [d, `${d}.txt`, `${d} `, `${d} .pdf`, `${d}.`, `${d}...`]);
  const values = [...variants, "", ".", "..", " ", "...", "   ", "x.", "x "];
  // The Windows rule is what matters here; the device names and dots are the same text on every OS.
  const os = "windows";
  const namesOf = (value: string) => {
    const pdf = pdfFileName(1, value, value, os);
    return [
      pdf,
      pdfFileName(1, "", value, os),
      pdfFileName(1, value, "", os),
      partialFileName(pdf, 7, os),
      archiveFileName(pdf, os),
      tempHtmlFileName(value, 1, value, os),
      tempHtmlFileName("", 1, value, os),
      shipmentLogFileName(value, os),
      portLogFileName(value, os),
      resultsCsvFileName(value, os),
      stopFileName(value, os),
    ];
  };

  await t.step("values that are device names or end in dots and spaces", () => {
    for (const value of values) for (const name of namesOf(value)) assertSafeName(name, os);
  });

  await t.step("the same values cut at the 255-byte limit", () => {
    for (const value of values) {
      for (const name of namesOf(`${"x".repeat(250)}${value}`)) assertSafeName(name, os);
    }
  });
});
