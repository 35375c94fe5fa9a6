/**
 * Could `Network.setBlockedURLs` stand in for the page guard's `Fetch` interception of local files? A `file:`
 * page (as Job B's report) reaches for a secret local file in each way the hostile-page tests use; with every
 * `file:` URL but the page's own blocked (`Network.setBlockedURLs`, no `Fetch`), it says for each whether
 * Chromium reported the request blocked and whether the secret reached the page's text or its PDF. Not part of
 * `deno task bench`:
 *
 *     deno run -A bench/diagnostics/blocked_urls.ts
 *
 * @module
 */
import { pathToFileURL } from "node:url";
import { openFirstTab } from "../harness/first_tab.ts";
import { table } from "../harness/markdown.ts";

const CALL_MS = 10_000;
const dir = await Deno.makeTempDir({ prefix: "cjbu-" });
const secret = `SECRET${crypto.randomUUID().slice(0, 8)}`;
await Deno.writeTextFile(`${dir}/secret.txt`, secret);
await Deno.writeTextFile(`${dir}/secret.css`, `body::after { content: "${secret}"; }`);
await Deno.writeTextFile(`${dir}/secret.js`, `document.body.append(${JSON.stringify(secret)});`);
await Deno.writeTextFile(`${dir}/secret-worker.js`, `postMessage(${JSON.stringify(secret)});`);
const file = (name: string) => JSON.stringify(pathToFileURL(`${dir}/${name}`).href);
const afterLoad = (code: string) =>
  `<script>addEventListener("load", () => setTimeout(() => { ${code} }, 50));</script>`;
const VECTORS: Record<string, string> = {
  "iframe": `<iframe src=${file("secret.txt")}></iframe>`,
  "object": `<object data=${file("secret.txt")} type="text/plain"></object>`,
  "embed": `<embed src=${file("secret.txt")} type="text/plain">`,
  "stylesheet": `<link rel="stylesheet" href=${file("secret.css")}>`,
  "script": `<script src=${file("secret.js")}></script>`,
  "image": `<img src=${file("secret.txt")}>`,
  "worker": `<script>try { new Worker(${
    file("secret-worker.js")
  }).onmessage = (e) => document.body.append(e.data);
    } catch { document.body.append("worker refused"); }</script>`,
  "top frame navigated": afterLoad(`location.href = ${file("secret.txt")};`),
  "frame navigated": `<iframe id="f" src="about:blank"></iframe>` +
    afterLoad(`document.getElementById("f").src = ${file("secret.txt")};`),
};

const rows: string[][] = [];
{
  await using tab = await openFirstTab();
  const { cdp, sessionId } = tab;
  await cdp.send("Network.enable", {}, CALL_MS, sessionId);
  const requested = new Map<string, string>();
  const blocked: string[] = [];
  cdp.on("Network.requestWillBeSent", (p) => requested.set(p.requestId, p.request.url), sessionId);
  cdp.on("Network.loadingFailed", (p) => {
    if (p.blockedReason) blocked.push(requested.get(p.requestId)?.replace(/^.*\//, "") ?? "?");
  }, sessionId);
  for (const [name, body] of Object.entries(VECTORS)) {
    const report = `${dir}/report-${rows.length}.html`;
    await Deno.writeTextFile(report, `<!doctype html><html><body><h1>REPORT</h1>${body}</body></html>`);
    const reportUrl = pathToFileURL(report).href;
    await cdp.send(
      "Network.setBlockedURLs",
      {
        urlPatterns: [{ urlPattern: reportUrl, block: false }, { urlPattern: "file://*", block: true }],
      },
      CALL_MS,
      sessionId,
    );
    blocked.length = 0;
    const load = cdp.waitFor("Page.loadEventFired", CALL_MS, sessionId);
    await cdp.send("Page.navigate", { url: reportUrl }, CALL_MS, sessionId);
    await load.promise.catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 600));
    const { result } = await cdp.send(
      "Runtime.evaluate",
      {
        expression: `document.body.innerText + getComputedStyle(document.body, "::after").content`,
        returnByValue: true,
      },
      CALL_MS,
      sessionId,
    );
    const { data } = await cdp.send("Page.printToPDF", {}, CALL_MS, sessionId);
    await Deno.writeFile(`${dir}/page.pdf`, Uint8Array.fromBase64(data!));
    const printed = await new Deno.Command("pdftotext", { args: [`${dir}/page.pdf`, "-"] }).output();
    rows.push([
      name,
      blocked.join(", ") || "none",
      String(result.value).includes(secret) ? "**yes**" : "no",
      new TextDecoder().decode(printed.stdout).includes(secret) ? "**yes**" : "no",
    ]);
  }
}
await Deno.remove(dir, { recursive: true });
console.log(table(["vector", "reported blocked", "secret in the page's text", "secret in the PDF"], rows));
