// Fast tests of the sandbox's hostile pages over real HTTP (no browser): what each marker serves.
import assert from "node:assert/strict";
import {
  downloadFileName,
  FOREIGN_STYLE_MARKER,
  HOSTILE_REPORT_MARKER,
  HOSTILE_VECTORS,
  REPLACED_PAGE_MARKER,
  SECRET_FILES,
  startSandbox,
  writeLocalSecretFiles,
} from "../fixtures/sandbox.ts";
import { hostileVectorOf } from "../fixtures/sandbox/hostile_pages.ts";

const LOCAL = "file:///srv/secret-place/secret.txt";

/** The port portal's report for `container`, through its form POST and session cookie. */
async function report(portUrl: string, container: string): Promise<string> {
  const post = await fetch(`${portUrl}/index.php/Report/mySearchContainerLocation`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ containerLocation: container }),
    redirect: "manual",
  });
  await post.body?.cancel();
  const cookie = post.headers.get("set-cookie")!.split(";")[0]!;
  return await (await fetch(new URL(post.headers.get("location")!, portUrl), { headers: { cookie } })).text();
}

Deno.test("hostile markers: each picks its own vector, none is part of another", () => {
  const markers = Object.values(HOSTILE_VECTORS).map((v) => v.marker);
  for (const [name, { marker }] of Object.entries(HOSTILE_VECTORS)) {
    assert.equal(hostileVectorOf(`MSCU1-${marker.toLowerCase()}-2`), name);
    assert.deepEqual(markers.filter((m) => m !== marker && m.includes(marker)), [], marker);
    // The port portal's older markers must not fire on a hostile row.
    for (const old of ["SHORT", "SLOW", "ERR500", "NOFRAME", "LATEFRAME"]) assert.ok(!marker.includes(old));
  }
  assert.equal(hostileVectorOf("MSCU1234567"), undefined);
});

Deno.test("port portal: a hostile report is a full report that reaches for the configured local file", async (t) => {
  await using sb = await startSandbox({ localFileUrl: LOCAL });
  const dir = "file:///srv/secret-place/";
  const expected: Record<string, RegExp> = {
    iframe: /<iframe src="file:\/\/\/srv\/secret-place\/secret\.txt">/,
    object: /<object data="file:\/\/\/srv\/secret-place\/secret\.txt"/,
    embed: /<embed src="file:\/\/\/srv\/secret-place\/secret\.txt"/,
    stylesheet: /<link rel="stylesheet" href="file:\/\/\/srv\/secret-place\/secret\.css">/,
    image: /<img src="file:\/\/\/srv\/secret-place\/secret\.svg"/,
    font: /src: url\("file:\/\/\/srv\/secret-place\/secret\.ttf"\)/,
    script: /<script src="file:\/\/\/srv\/secret-place\/secret\.js"><\/script>/,
    media: /<audio src="file:\/\/\/srv\/secret-place\/secret\.wav"[^]*<video src="file:/,
    worker: /new Worker\("file:\/\/\/srv\/secret-place\/secret-worker\.js"\)/,
    foreignStylesheet: /<link rel="stylesheet" href="http:\/\/localhost:\d+\/__hostile\/style\.css">/,
    refreshToFile: /<meta http-equiv="refresh" content="0; url=file:\/\/\/srv\/secret-place\/secret\.txt">/,
    baseHref: new RegExp(`<base href="${dir}">[^]*<iframe src="secret\\.txt">`),
    locationToFile: /location\.href = "file:\/\/\/srv\/secret-place\/secret\.txt"/,
    navigateScript: /location\.href = "http:\/\/127\.0\.0\.1:\d+\/__hostile\/elsewhere\?via=script"/,
    navigateRefresh:
      /<meta http-equiv="refresh" content="0; url=http:\/\/127\.0\.0\.1:\d+\/__hostile\/elsewhere\?via=refresh">/,
    navigateForm:
      /<form id="hostile-form" method="post" action="http:[^"]+\/__hostile\/elsewhere\?via=form">/,
    navigateLink: /<a id="hostile-link" href="http:[^"]+\/__hostile\/elsewhere\?via=link">/,
    popup: /window\.open\("http:[^"]+\/__hostile\/elsewhere\?via=popup"\)/,
    downloadLink:
      /href="http:[^"]+\/__hostile\/attachment\?name=hostile-download-C1-HXDOWNLOADLINK\.txt" download=/,
    downloadNavigation:
      /location\.href = "http:[^"]+\/__hostile\/attachment\?name=hostile-download-C1-HXATTACHMENT\.txt"/,
    permissions: /navigator\.geolocation\.getCurrentPosition/,
  };
  assert.deepEqual(Object.keys(expected).sort(), Object.keys(HOSTILE_VECTORS).sort(), "every vector checked");
  for (const [name, { marker }] of Object.entries(HOSTILE_VECTORS)) {
    await t.step(name, async () => {
      const container = `C1-${marker}`;
      const html = await report(sb.portUrl, container);
      assert.ok(html.length >= 100, "long enough for Job B");
      assert.ok(html.includes(HOSTILE_REPORT_MARKER) && html.includes(container));
      assert.match(html, expected[name]!);
    });
  }
});

Deno.test("hostile targets: the replaced page on both portals, and an attachment", async () => {
  await using sb = await startSandbox();
  for (const origin of [new URL(sb.portUrl).origin, sb.trackingPortalUrl]) {
    const page = await fetch(`${origin}/__hostile/elsewhere?via=form`, { method: "POST", body: "via=form" });
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(`${REPLACED_PAGE_MARKER}[^]*Reached by form`));
  }
  const name = downloadFileName("C 1/x");
  assert.equal(name, "hostile-download-C_1_x.txt");
  const file = await fetch(`${new URL(sb.portUrl).origin}/__hostile/attachment?name=${name}`);
  assert.equal(file.headers.get("content-disposition"), `attachment; filename="${name}"`);
  assert.match(await file.text(), /never save/);
  // The foreign stylesheet, reached under the other name of the same server.
  const css = await fetch(`http://localhost:${new URL(sb.portUrl).port}/__hostile/style.css`);
  assert.match(await css.text(), new RegExp(`body::before \\{ content: "${FOREIGN_STYLE_MARKER}"`));
});

Deno.test("tracking portal: an HX marker adds its markup to the shipment page, which keeps its frame", async () => {
  await using sb = await startSandbox({ localFileUrl: LOCAL });
  const html = await (await fetch(`${sb.trackingPortalUrl}/CPH-HXNAVSCRIPT-1`)).text();
  assert.match(html, /<h1>Shipment CPH-HXNAVSCRIPT-1<\/h1>/);
  assert.match(html, /<iframe id="reportco-tracking-frame"/);
  assert.match(html, /location\.href = "http:\/\/127\.0\.0\.1:\d+\/__hostile\/elsewhere\?via=script"/);
  const plain = await (await fetch(`${sb.trackingPortalUrl}/CPH-1`)).text();
  assert.doesNotMatch(plain, /__hostile/);
});

Deno.test("writeLocalSecretFiles: every file holds or shows the secret; the URL is the text file's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cj-secret-" });
  try {
    const url = await writeLocalSecretFiles(dir, "s3cr3tABC");
    assert.equal(url, `file://${dir}/${SECRET_FILES.text}`);
    for (const name of ["text", "css", "script", "worker", "svg"] as const) {
      assert.match(await Deno.readTextFile(`${dir}/${SECRET_FILES[name]}`), /s3cr3tABC/, name);
    }
    const wav = await Deno.readFile(`${dir}/${SECRET_FILES.wav}`);
    const ascii = (from: number, to: number) => new TextDecoder().decode(wav.slice(from, to));
    assert.deepEqual([ascii(0, 4), ascii(8, 16)], ["RIFF", "WAVEfmt "]);
    assert.equal(new DataView(wav.buffer).getUint32(4, true), wav.length - 8, "RIFF size");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
