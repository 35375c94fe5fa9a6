// `deno task demo` as an operator runs it: both jobs against the sandbox, offline, and the Job A PDFs show
// the detail page from the other site inside the portal's frame.
import assert from "node:assert/strict";
import { detailIdFor, detailMarker } from "../../fixtures/sandbox.ts";
import { pdfText, ROOT, TestFolder } from "../helpers/job_process.ts";

// No bound here: the demo's jobs run with their own limits (scripts/demo.ts: 5 s element wait, 1 s consent
// waits), each row ends within them, and the test waits for the demo's exit.
Deno.test("deno task demo: both jobs finish, Job A's PDFs show the detail page, uploads are listed", async () => {
  await using dir = await TestFolder.create();
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "demo"],
    cwd: ROOT,
    env: { NO_COLOR: "1", ...dir.env },
    stdin: "null",
  }).output();
  const output = new TextDecoder().decode(stdout);
  const outRoot = /Open the PDFs under (\S+) to see/.exec(output)?.[1];
  assert.ok(outRoot, output + new TextDecoder().decode(stderr));
  try {
    assert.equal(code, 0, output);
    assert.match(output, /=== Job A, shipment tracking[\s\S]*Exit code 0\. 4 PDF\(s\)/);
    assert.match(output, /=== Job B, port container location[\s\S]*Exit code 0\. 5 PDF\(s\)/);
    assert.match(output, /POST \/api\/local-exe\/jobs\/demo-a\/upload-log: shipment_tracking_demo-a\.log/);
    assert.match(
      output,
      /POST \/api\/local-exe\/jobs\/demo-b\/upload-log: port_tracking_results_demo-b\.csv/,
    );
    const fcr = "CPH2026000101";
    const text = await pdfText(`${outRoot}/shipments/001 INV-2026-101 ${fcr}.pdf`);
    assert.ok(text.includes(detailMarker(fcr, detailIdFor(fcr))), text);
  } finally {
    await Deno.remove(outRoot, { recursive: true });
  }
});
