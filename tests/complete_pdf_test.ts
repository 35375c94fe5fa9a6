// What `--resume` takes for a complete PDF under a row's final name (real files in a temporary folder; the
// end-to-end resume tests check the same against the PDFs Chromium prints).
import assert from "node:assert/strict";
import { isCompletePdf } from "../lib/complete_pdf.ts";

Deno.test("isCompletePdf: %PDF- at the start and %%EOF at the end of a regular file, nothing else", async () => {
  const dir = await Deno.makeTempDir({ prefix: "complete-pdf-test-" });
  try {
    const body = "%PDF-1.4\n" + "1 0 obj << >> endobj\n".repeat(200) + "trailer << >>\nstartxref\n9\n";
    const write = async (name: string, text: string) => {
      await Deno.writeTextFile(`${dir}/${name}`, text);
      return `${dir}/${name}`;
    };
    assert.equal(await isCompletePdf(await write("complete.pdf", body + "%%EOF")), true);
    assert.equal(await isCompletePdf(await write("newline.pdf", body + "%%EOF\r\n")), true);
    assert.equal(await isCompletePdf(await write("cut.pdf", body)), false, "cut before its end");
    assert.equal(await isCompletePdf(await write("cut-mid.pdf", body + "%%EO")), false);
    assert.equal(await isCompletePdf(await write("html.pdf", "<html>" + body + "%%EOF")), false, "not a PDF");
    assert.equal(await isCompletePdf(await write("empty.pdf", "")), false);
    assert.equal(await isCompletePdf(`${dir}/missing.pdf`), false);
    await Deno.mkdir(`${dir}/folder.pdf`);
    assert.equal(await isCompletePdf(`${dir}/folder.pdf`), false);
    await Deno.symlink(`${dir}/complete.pdf`, `${dir}/link.pdf`);
    assert.equal(await isCompletePdf(`${dir}/link.pdf`), false, "a link is captured again, not trusted");
    const fifo = new Deno.Command("mkfifo", { args: [`${dir}/pipe.pdf`] }).outputSync();
    if (fifo.success) {
      assert.equal(await isCompletePdf(`${dir}/pipe.pdf`), false, "a named pipe is not opened");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
