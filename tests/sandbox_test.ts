// Fast tests of the sandbox's routes over real HTTP (no browser).
import assert from "node:assert/strict";
import {
  detailIdFor,
  detailMarker,
  type Sandbox,
  startSandbox,
  STYLESHEET_MARKER,
} from "../fixtures/sandbox.ts";
import { CONSENT_COOKIE } from "../fixtures/sandbox/tracking_portal.ts";
import type { ConsentButton } from "../fixtures/sandbox/types.ts";

const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** POSTs the container form without following the redirect. */
function postContainer(sb: Sandbox, container: string): Promise<Response> {
  return fetch(`${sb.portUrl}/index.php/Report/mySearchContainerLocation`, {
    method: "POST",
    headers: FORM,
    body: new URLSearchParams({ containerLocation: container }),
    redirect: "manual",
  });
}

/** Runs the POST, then the GET of the result with the session cookie, as a cookie-keeping client does. */
async function containerReport(sb: Sandbox, container: string): Promise<Response> {
  const post = await postContainer(sb, container);
  await post.body?.cancel();
  assert.equal(post.status, 303);
  const cookie = post.headers.get("set-cookie")!.split(";")[0]!;
  return fetch(new URL(post.headers.get("location")!, sb.portUrl), { headers: { cookie } });
}

async function text(url: string | URL, init?: RequestInit): Promise<[number, string]> {
  const res = await fetch(url, init);
  return [res.status, await res.text()];
}

function search(sb: Sandbox, fcr: string): Promise<Response> {
  return fetch(`${sb.reportingUrl}?ref=/search&search=${encodeURIComponent(fcr)}`, { redirect: "manual" });
}

Deno.test("sandbox URLs have the promised shapes and localhost reaches the reporting site", async () => {
  await using sb = await startSandbox();
  assert.match(sb.trackingPortalUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(sb.reportingUrl, /^http:\/\/localhost:\d+\/report$/);
  assert.match(sb.portUrl, /^http:\/\/127\.0\.0\.1:\d+\/pcs$/);
  assert.match(sb.apiBaseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(sb.frameSelector, "#reportco-tracking-frame");
  assert.deepEqual(sb.options, {
    consentBanner: false,
    consentButton: "allow-all",
    slowMs: 3000,
    fontDelayMs: 6000,
    localFileUrl: "file:///etc/hostname",
    frameHomeAfterSearchMs: null,
  });
  const [status, body] = await text(`${sb.reportingUrl}?ref=/home`);
  assert.equal(status, 200);
  assert.match(body, /Reporting home/);
});

Deno.test("port portal: POST redirects with a session cookie that the result page requires", async () => {
  await using sb = await startSandbox();
  const post = await postContainer(sb, "MSCU1234567");
  await post.body?.cancel();
  assert.equal(post.status, 303);
  assert.equal(
    post.headers.get("location"),
    "/pcs/index.php/Report/containerLocationResult?containerLocation=MSCU1234567",
  );
  assert.match(post.headers.get("set-cookie")!, /^PCS_SESSION=[^;]+; Path=\/pcs; HttpOnly$/);
  const resultUrl = new URL(post.headers.get("location")!, sb.portUrl);

  assert.deepEqual(await text(resultUrl), [403, "session expired"]);
  assert.deepEqual(await text(resultUrl, { headers: { cookie: "PCS_SESSION=forged" } }), [
    403,
    "session expired",
  ]);

  const [status, html] = await text(resultUrl, {
    headers: { cookie: post.headers.get("set-cookie")!.split(";")[0]! },
  });
  assert.equal(status, 200);
  assert.ok(html.length > 100);
  assert.match(html, /<title>Container Location Report<\/title>/);
  assert.match(html, /<link rel="stylesheet" href="\/pcs\/css\/report.css">/);
  assert.match(html, /<img src="images\/cpa-logo.svg"/);
  assert.doesNotMatch(html, /<base/i);
  for (const column of ["Container", "Yard", "Position", "Status", "Last update"]) {
    assert.match(html, new RegExp(`<th>${column}</th>`));
  }
  assert.match(html, /<td>MSCU1234567<\/td>/);

  const [post1, get1, get2, get3] = sb.requests.port;
  assert.equal(sb.requests.port.length, 4);
  assert.equal(post1!.method, "POST");
  assert.deepEqual(post1!.form, { containerLocation: "MSCU1234567" });
  assert.equal(post1!.headers["content-type"], "application/x-www-form-urlencoded");
  assert.equal(get1!.query.containerLocation, "MSCU1234567");
  assert.equal(get2!.headers.cookie, "PCS_SESSION=forged");
  assert.match(get3!.headers.cookie!, /^PCS_SESSION=/);
});

Deno.test("port portal: report is deterministic and escapes the container number", async () => {
  await using sb = await startSandbox();
  const first = await (await containerReport(sb, "MAEU7654321")).text();
  const again = await (await containerReport(sb, "MAEU7654321")).text();
  assert.equal(first, again);
  const other = await (await containerReport(sb, "CMAU3141592")).text();
  assert.notEqual(first.replaceAll("MAEU7654321", "X"), other.replaceAll("CMAU3141592", "X"));

  const hostile = `<script>alert("x")</script>'&`;
  const html = await (await containerReport(sb, hostile)).text();
  assert.doesNotMatch(html, /<script>/);
  assert.match(html, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;&#39;&amp;/);
});

Deno.test("port portal: ERR500, SHORT and SLOW cases (matched case-insensitively)", async () => {
  await using sb = await startSandbox({ slowMs: 150 });
  const failed = await postContainer(sb, "tghu-err500-4");
  assert.deepEqual([failed.status, await failed.text()], [500, "Internal Server Error"]);

  const short = await containerReport(sb, "MSCU-SHORT-1");
  const body = await short.text();
  assert.equal(short.status, 200);
  assert.ok(body.length < 100, body);

  const started = performance.now();
  const slow = await containerReport(sb, "MSCU-slow-1");
  assert.equal(slow.status, 200);
  assert.match(await slow.text(), /Container Location Report/);
  assert.ok(performance.now() - started >= 140);
});

Deno.test("port portal: stylesheet with visible marker and the logo at both paths", async () => {
  await using sb = await startSandbox();
  const origin = new URL(sb.portUrl).origin;
  const css = await fetch(`${origin}/pcs/css/report.css`);
  assert.match(css.headers.get("content-type")!, /^text\/css/);
  assert.match(
    await css.text(),
    new RegExp(`\\.report-title::after \\{ content: " · ${STYLESHEET_MARKER}"; \\}`),
  );
  for (const path of ["/pcs/images/cpa-logo.svg", "/pcs/index.php/Report/images/cpa-logo.svg"]) {
    const svg = await fetch(origin + path);
    assert.equal(svg.headers.get("content-type"), "image/svg+xml");
    assert.match(await svg.text(), /^<svg/);
  }
  assert.equal((await text(`${origin}/pcs/nothing`))[0], 404);
});

/**
 * The banner of each button shape, spelled out: a class only where the class selectors are meant, the wrapper
 * id everywhere but on "plain". That each is found by its intended selector in a real browser is checked in
 * consent_test.ts.
 */
const BANNER_MARKUP: Record<ConsentButton, string> = {
  "allow-all": `<div id="coi-banner-wrapper" class="coi-consent-banner">We use cookies.
<button data-test="coi-allow-all-button">Allow all</button></div>`,
  mobile: `<div id="coi-banner-wrapper" class="coi-consent-banner">We use cookies.
<button data-test="coi-allow-all-button-mobile">Allow all</button></div>`,
  wrapper: `<div id="coi-banner-wrapper" class="coi-consent-banner">We use cookies.
<button class="coi-banner__accept">Allow all</button></div>`,
  plain: `<div class="coi-consent-banner">We use cookies.
<button class="coi-banner__accept">Allow all</button></div>`,
};

Deno.test("tracking portal: root page and the consent banner switched at run time", async () => {
  await using sb = await startSandbox();
  const [, plain] = await text(sb.trackingPortalUrl + "/");
  assert.match(plain, /Carrier Tracking Portal/);
  assert.doesNotMatch(plain, /coi-consent-banner|Allow all/);

  sb.options.consentBanner = true;
  const [, withBanner] = await text(sb.trackingPortalUrl + "/");
  assert.ok(withBanner.includes(BANNER_MARKUP["allow-all"]), withBanner);
  // The click both stores the consent, as Cookie Information does, and tells the sandbox.
  assert.ok(withBanner.includes(`document.cookie = "${CONSENT_COOKIE}=all; path=/;`));
  assert.match(withBanner, /fetch\("\/__consent\?accepted=1"\)/);

  assert.equal(sb.consentClicks, 0);
  const consent = await fetch(`${sb.trackingPortalUrl}/__consent?accepted=1`);
  await consent.body?.cancel();
  assert.equal(sb.consentClicks, 1);
});

Deno.test("tracking portal: the banner is on every page until the consent cookie comes with the request", async () => {
  await using sb = await startSandbox({ consentBanner: true });
  for (const path of ["/", "/CPH2026000101", "/CPH-NOFRAME-1", "/CPH-LATEFRAME-1", "/CPH%20105%2FA%26B"]) {
    const [status, page] = await text(sb.trackingPortalUrl + path);
    assert.equal(status, 200, path);
    assert.ok(page.includes(BANNER_MARKUP["allow-all"]), `${path}: ${page}`);
    for (const cookie of [`${CONSENT_COOKIE}=all`, `theme=dark; ${CONSENT_COOKIE}=all; lang=en`]) {
      const [, accepted] = await text(sb.trackingPortalUrl + path, { headers: { cookie } });
      assert.doesNotMatch(accepted, /coi-consent-banner|Allow all/, `${path} with ${cookie}`);
      assert.match(
        accepted,
        /<h1>(Carrier Tracking Portal|Shipment [^<]+)<\/h1>/,
        "the page itself is still there",
      );
    }
  }
  const [, lookalike] = await text(`${sb.trackingPortalUrl}/CPH1`, {
    headers: { cookie: `X${CONSENT_COOKIE}=all; ${CONSENT_COOKIE}Old=all` },
  });
  assert.ok(
    lookalike.includes(BANNER_MARKUP["allow-all"]),
    "only the consent cookie itself hides the banner",
  );
});

Deno.test("tracking portal: each banner shape has only the button its consent selector is meant to find", async () => {
  await using sb = await startSandbox({ consentBanner: true });
  for (const [shape, markup] of Object.entries(BANNER_MARKUP) as [ConsentButton, string][]) {
    sb.options.consentButton = shape;
    for (const path of ["/", "/CPH1"]) {
      const [, page] = await text(sb.trackingPortalUrl + path);
      assert.ok(page.includes(markup), `${shape} ${path}: ${page}`);
      assert.equal(page.match(/<button\b/g)?.length, 1, `${shape} ${path}: one button`);
    }
  }
});

Deno.test("tracking portal: shipment pages with, without and with a late frame", async () => {
  await using sb = await startSandbox();
  const [status, page] = await text(`${sb.trackingPortalUrl}/${encodeURIComponent("FCR 1<b>")}`);
  assert.equal(status, 200);
  assert.match(page, /<h1>Shipment FCR 1&lt;b&gt;<\/h1>/);
  assert.ok(
    page.includes(
      `<iframe id="reportco-tracking-frame" src="${sb.reportingUrl}?ref=/home" style="width:100%;height:900px;border:0">`,
    ),
  );
  assert.equal(sb.requests.portal.at(-1)!.path, "/FCR%201%3Cb%3E");

  const [, noFrame] = await text(`${sb.trackingPortalUrl}/CPH-NOFRAME-000105`);
  assert.match(noFrame, /Shipment CPH-NOFRAME-000105/);
  assert.doesNotMatch(noFrame, /iframe/);

  const [, late] = await text(`${sb.trackingPortalUrl}/CPH-LATEFRAME-1`);
  assert.doesNotMatch(late, /<iframe/); // only inside the script, with "<" escaped
  assert.match(late, /setTimeout\([^]*reportco-tracking-frame[^]*1500\)/);
});

Deno.test("tracking portal: a HOMEFRAME frame's first page is the portal's own, held until the search when asked", async () => {
  await using sb = await startSandbox();
  const fcr = "CPH-LATEFRAME-HOMEFRAME-1";
  const [, page] = await text(`${sb.trackingPortalUrl}/${fcr}`);
  assert.ok(page.includes(`src=\\"/_frame/initial?fcr=${fcr}\\"`), page);
  const [status, first] = await text(`${sb.trackingPortalUrl}/_frame/initial?fcr=${fcr}`);
  assert.equal(status, 200);
  assert.match(first, /Tracking details are on their way/);

  sb.options.frameHomeAfterSearchMs = 50;
  let answeredAt = 0;
  const held = text(`${sb.trackingPortalUrl}/_frame/initial?fcr=${fcr}`).then(() =>
    answeredAt = performance.now()
  );
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(answeredAt, 0, "held until the search");
  const searchedAt = performance.now();
  await (await search(sb, fcr)).body?.cancel();
  await held;
  assert.ok(
    answeredAt - searchedAt >= 49, // timers round to the ms
    `answered ${answeredAt - searchedAt} ms after the search`,
  );
});

Deno.test("reporting site: default search redirects to the detail id", async () => {
  await using sb = await startSandbox();
  const fcr = "CPH 2026/101";
  const res = await search(sb, fcr);
  await res.body?.cancel();
  assert.equal(res.status, 302);
  const id = detailIdFor(fcr);
  assert.match(id, /^\d{6}$/);
  assert.equal(detailIdFor(fcr), id);
  assert.notEqual(detailIdFor("CPH2026000102"), id);
  assert.equal(
    res.headers.get("location"),
    `${sb.reportingUrl}?ref=/fcr&id=${id}&txt=${encodeURIComponent(fcr)}`,
  );
  assert.deepEqual(sb.requests.reporting[0]!.query, { ref: "/search", search: fcr });
});

Deno.test("reporting site: REDIR3xx redirect with that status, REDIRNOID to a Location without an id", async () => {
  await using sb = await startSandbox();
  for (const status of [301, 303, 307, 308]) {
    const fcr = `x-redir${status}-1`;
    const res = await search(sb, fcr);
    await res.body?.cancel();
    assert.equal(res.status, status, fcr);
    assert.equal(
      res.headers.get("location"),
      `${sb.reportingUrl}?ref=/fcr&id=${detailIdFor(fcr)}&txt=${fcr}`,
    );
  }
  const res = await search(sb, "X-REDIRNOID-2");
  await res.body?.cancel();
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), `${sb.reportingUrl}?ref=/home`);
  assert.equal(sb.requests.reporting.length, 5);
});

Deno.test("reporting site: search answers with links, no link, 500 and slowly", async () => {
  await using sb = await startSandbox({ slowMs: 150 });
  const body = async (fcr: string) => {
    const res = await search(sb, fcr);
    return [res.status, await res.text()] as const;
  };
  const abs = "X-LINKABS-1";
  const [absStatus, absHtml] = await body(abs);
  assert.equal(absStatus, 200);
  assert.ok(absHtml.includes(`href="${sb.reportingUrl}?ref=/fcr&amp;id=${detailIdFor(abs)}&amp;txt=${abs}"`));
  assert.match(absHtml, /href="\/report\?ref=\/home"/); // unrelated links too

  const rel = "x-linkrel-2";
  assert.ok(
    (await body(rel))[1].includes(`href="/report?ref=/fcr&amp;id=${detailIdFor(rel)}&amp;txt=${rel}"`),
  );

  const upper = "X-LINKCASE-3";
  assert.ok(
    (await body(upper))[1].includes(
      `href="/REPORT?REF=/FCR&amp;ID=${detailIdFor(upper)}&amp;TXT=x-linkcase-3"`,
    ),
  );

  const raw = "x-linkraw-8";
  const [, rawHtml] = await body(raw);
  assert.ok(rawHtml.includes(`href="/report?ref=/fcr&id=${detailIdFor(raw)}&txt=${raw}"`), rawHtml);

  const dot = "X-LINKDOT-9";
  assert.ok(
    (await body(dot))[1].includes(`href="./report?ref=/fcr&amp;id=${detailIdFor(dot)}&amp;txt=${dot}"`),
  );

  const proto = "X-LINKPROTO-10";
  const host = new URL(sb.reportingUrl).host;
  assert.match(host, /^localhost:\d+$/);
  assert.ok(
    (await body(proto))[1].includes(
      `href="//${host}/report?ref=/fcr&amp;id=${detailIdFor(proto)}&amp;txt=${proto}"`,
    ),
  );

  const [, otherHtml] = await body("X-LINKOTHER-4");
  assert.ok(otherHtml.includes(`ref=/fcr&amp;id=${detailIdFor("OTHER-123")}&amp;txt=OTHER-123"`));
  assert.doesNotMatch(otherHtml, /LINKOTHER-4"/);

  const [noLinkStatus, noLink] = await body("X-NOLINK-5");
  assert.equal(noLinkStatus, 200);
  assert.doesNotMatch(noLink, /ref=\/fcr/i);

  assert.equal((await body("X-SEARCH500-6"))[0], 500);

  const started = performance.now();
  const slow = await search(sb, "X-SEARCHSLOW-7");
  await slow.body?.cancel();
  assert.equal(slow.status, 302);
  assert.ok(performance.now() - started >= 140);
});

Deno.test("reporting site: detail page carries the marker, also for unknown ids and upper-case URLs", async () => {
  await using sb = await startSandbox();
  const fcr = "CPH2026000101";
  const id = detailIdFor(fcr);
  const [status, html] = await text(`${sb.reportingUrl}?ref=/fcr&id=${id}&txt=${fcr}`);
  assert.equal(status, 200);
  assert.match(html, /<h1>Shipment detail<\/h1>/);
  assert.ok(html.includes(detailMarker(fcr, id)));
  assert.equal(detailMarker(fcr, id), `DETAIL ${fcr} RECORD ${id}`);
  assert.match(html, /<table>/);

  const [unknownStatus, unknown] = await text(`${sb.reportingUrl}?ref=/fcr&id=999999&txt=NOPE`);
  assert.equal(unknownStatus, 200);
  assert.ok(unknown.includes("DETAIL NOPE RECORD 999999"));

  const origin = new URL(sb.reportingUrl).origin;
  assert.ok(
    (await text(`${origin}/REPORT?REF=/FCR&ID=${id}&TXT=abc`))[1].includes(`DETAIL abc RECORD ${id}`),
  );
  assert.equal((await text(`${origin}/elsewhere`))[0], 404);
});

Deno.test("reporting site: DETAILSLOW sends the detail up to its table, the rest after slowMs", async () => {
  await using sb = await startSandbox({ slowMs: 150 });
  const fcr = "X-DETAILSLOW-1";
  const id = detailIdFor(fcr);
  const started = performance.now();
  const res = await fetch(`${sb.reportingUrl}?ref=/fcr&id=${id}&txt=${fcr}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/html/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const head = (await reader.read()).value!;
  assert.ok(head.includes(detailMarker(fcr, id)), head);
  assert.doesNotMatch(head, /<table>/);
  let rest = "";
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
  assert.ok(performance.now() - started >= 140);
  assert.match(rest, /^<table>[^]*<\/html>\n$/);
});

/** Uploads a log for `jobId` the way the job client does. */
function upload(sb: Sandbox, jobId: string): Promise<Response> {
  const form = new FormData();
  form.append("logFile", new File(["line 1\n"], `port_tracking_${jobId}.log`, { type: "text/plain" }));
  for (const [k, v] of Object.entries({ userId: "u-7", serviceId: "svc", creditsUsed: "1.5" })) {
    form.append(k, v);
  }
  return fetch(`${sb.apiBaseUrl}/api/local-exe/jobs/${encodeURIComponent(jobId)}/upload-log`, {
    method: "POST",
    body: form,
  });
}

function complete(sb: Sandbox, jobId: string): Promise<Response> {
  return fetch(`${sb.apiBaseUrl}/api/local-exe/jobs/${encodeURIComponent(jobId)}/complete`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ success: true, resultFiles: ["/a"], outputFiles: [] }),
  });
}

Deno.test("job server ok: records multipart and JSON bodies with the decoded job id", async () => {
  await using sb = await startSandbox();
  const jobId = "job 1/ä";
  const up = await upload(sb, jobId);
  assert.equal(up.status, 200);
  assert.deepEqual(await up.json(), {
    success: true,
    logFilePath: `/srv/jobs/${jobId}/port_tracking_${jobId}.log`,
  });
  const done = await complete(sb, jobId);
  assert.deepEqual([done.status, await done.json()], [200, { success: true }]);

  const [u, c] = sb.requests.jobServer;
  assert.equal(u!.path, `/api/local-exe/jobs/${encodeURIComponent(jobId)}/upload-log`);
  assert.equal(u!.jobId, jobId);
  assert.equal(u!.query.jobId, jobId);
  assert.deepEqual(u!.form, { userId: "u-7", serviceId: "svc", creditsUsed: "1.5" });
  assert.deepEqual(u!.files, {
    logFile: { name: `port_tracking_${jobId}.log`, type: "text/plain", text: "line 1\n" },
  });
  assert.equal(c!.jobId, jobId);
  assert.deepEqual(c!.json, { success: true, resultFiles: ["/a"], outputFiles: [] });

  const missing = await fetch(`${sb.apiBaseUrl}/api/local-exe/jobs/j/upload-log`, {
    method: "POST",
    body: new FormData(),
  });
  assert.equal(missing.status, 400);
  await missing.body?.cancel();
  assert.equal((await text(`${sb.apiBaseUrl}/api/other`))[0], 404);
});

Deno.test("job server failure modes answer as specified and still record", async () => {
  await using sb = await startSandbox();
  const cases: [Sandbox["jobServer"]["mode"], number, string][] = [
    ["error-500", 500, `{"success":false,"error":"boom"}`],
    ["success-false", 200, `{"success":false,"error":"rejected"}`],
    ["missing-path", 200, `{"success":true}`],
    ["invalid-json", 200, "not json"],
  ];
  for (const [mode, status, expected] of cases) {
    sb.jobServer.mode = mode;
    for (const res of [await upload(sb, "j"), await complete(sb, "j")]) {
      assert.deepEqual([res.status, await res.text()], [status, expected], mode);
    }
  }
  assert.equal(sb.requests.jobServer.length, cases.length * 2);
});

Deno.test("job server slow mode answers ok after slowMs", async () => {
  await using sb = await startSandbox();
  sb.jobServer = { mode: "slow", slowMs: 150 };
  const started = performance.now();
  const res = await upload(sb, "j");
  assert.equal((await res.json()).logFilePath, "/srv/jobs/j/port_tracking_j.log");
  assert.ok(performance.now() - started >= 140);
});

Deno.test("close() is prompt while slow requests hang, idempotent, and frees the ports", async () => {
  const sb = await startSandbox({ slowMs: 60_000 });
  sb.jobServer = { mode: "slow", slowMs: 60_000 };
  const pending = [
    upload(sb, "j"),
    search(sb, "X-SEARCHSLOW-1"),
    containerReport(sb, "MSCU-SLOW-1"),
  ].map((p) => p.then((res) => res.body?.cancel(), () => {}));
  // A detail whose body stalls is read to its end: close() has to end the body too.
  const detailBody = fetch(`${sb.reportingUrl}?ref=/fcr&id=1&txt=X-DETAILSLOW-1`).then((res) => res.text());
  // Wait until every server has the slow request in hand.
  while (
    sb.requests.jobServer.length < 1 || sb.requests.reporting.length < 2 || sb.requests.port.length < 2
  ) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const started = performance.now();
  await Promise.all([sb.close(), sb.close()]);
  await sb[Symbol.asyncDispose]();
  assert.ok(performance.now() - started < 1000, `close took ${performance.now() - started} ms`);
  await Promise.all(pending);
  assert.match(await detailBody, /<\/html>/);
  await assert.rejects(() => fetch(sb.trackingPortalUrl));
});
