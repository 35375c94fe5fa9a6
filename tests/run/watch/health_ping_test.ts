import assert from "node:assert/strict";
import {
  HealthPing,
  type HealthPingOptions,
  MAX_PING_BODY_BYTES,
  pingBody,
  shownPingUrl,
  summaryLine,
} from "../../../lib/run/watch/health_ping.ts";
import { type RunSummary, SUMMARY_SCHEMA } from "../../../lib/run/watch/run_summary.ts";
import { withDeadline } from "../../../lib/deadline.ts";
import { closedPort, TestServer } from "../../../fixtures/sandbox/http_server.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

// A real local monitor that records every ping with its body; each test sets how it answers.

const CHECK = "5f1c3a7e-2b9d-4e8a-9c61-0d4f7b2e8a13";

interface Ping {
  method: string;
  /** Path and query as received. */
  path: string;
  contentType: string;
  body: string;
}

type Answer = (ping: Ping, count: number, held: () => Promise<Response>) => Response | Promise<Response>;

class Monitor implements AsyncDisposable {
  readonly pings: Ping[] = [];
  answer: Answer = () => new Response("OK");
  readonly #server = TestServer.start().fallback(async (request, closing) => {
    const url = new URL(request.url);
    const ping: Ping = {
      method: request.method,
      path: url.pathname + url.search,
      contentType: request.headers.get("content-type") ?? "",
      body: await request.text(),
    };
    this.pings.push(ping);
    // Held until the server closes: a monitor that never answers, however long the client waits.
    const held = () =>
      new Promise<Response>((resolve) => {
        const release = () => resolve(new Response("closing", { status: 503 }));
        if (closing.aborted) release();
        else closing.addEventListener("abort", release, { once: true });
      });
    return await this.answer(ping, this.pings.length, held);
  });

  /** The ping URL of the check, on this monitor, with `tail` after the check's id. */
  url(tail = ""): string {
    return this.#server.url(`/ping/${CHECK}${tail}`);
  }

  get origin(): string {
    return this.#server.url("");
  }

  paths(): string[] {
    return this.pings.map((ping) => `${ping.method} ${ping.path}`);
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.#server.close();
  }
}

/** A HealthPing whose warnings land in `warnings`, with bounds a test can wait for. */
function pingOf(url: string, options: Partial<HealthPingOptions> = {}): [HealthPing, string[]] {
  const warnings: string[] = [];
  const ping = new HealthPing(url, {
    warn: (line) => warnings.push(line),
    tryMs: AMPLE_MS,
    retryWaitMs: 1,
    ...options,
  });
  return [ping, warnings];
}

/** `end`, bounded only against a hang. */
function ended(ping: HealthPing, code: number, body: string, stopped = false): Promise<void> {
  return withDeadline(ping.end(code, body, { stopped }), AMPLE_MS * 4, "the end ping");
}

async function until(condition: () => boolean): Promise<void> {
  await withDeadline(
    (async () => {
      while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
    })(),
    AMPLE_MS,
    "the awaited condition",
  );
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytesOf = (text: string) => utf8(text).length;

Deno.test("shownPingUrl keeps scheme and host (with its port) and hides the rest", () => {
  const cases: [string, string][] = [
    [`https://hc-ping.com/${CHECK}`, "https://hc-ping.com/***"],
    [`https://hc-ping.com/${CHECK}/`, "https://hc-ping.com/***"],
    ["https://hc-ping.com/ping-key/nightly-capture", "https://hc-ping.com/***"],
    [`http://user:pass@127.0.0.1:8000/ping/${CHECK}?rid=7`, "http://127.0.0.1:8000/***"],
    ["http://[::1]:9000/x", "http://[::1]:9000/***"],
    ["https://hc-ping.com:443/x", "https://hc-ping.com/***"],
    [`  https://hc-ping.com/${CHECK}\n`, "https://hc-ping.com/***"],
    [`not a url/${CHECK}`, "***"],
  ];
  for (const [url, shown] of cases) assert.equal(shownPingUrl(url), shown, url);
});

Deno.test("a URL HealthPing cannot ping is refused without showing its secret", () => {
  for (const url of [`ftp://files.example/${CHECK}`, `hc-ping.com/${CHECK}`]) {
    assert.throws(
      () => new HealthPing(url, { warn() {} }),
      (error) => error instanceof TypeError && !error.message.includes(CHECK),
    );
  }
});

Deno.test("start then end reach the monitor in that order, the end with its exit code and body", async (t) => {
  await using monitor = new Monitor();
  await t.step("URL without a trailing slash", async () => {
    const [ping, warnings] = pingOf(monitor.url());
    ping.start();
    await ended(ping, 3, "port-tracking J1: finished, exit 3\nRow 1: ä saved\n");
    assert.deepEqual(monitor.paths(), [`GET /ping/${CHECK}/start`, `POST /ping/${CHECK}/3`]);
    assert.equal(monitor.pings[0]!.body, "");
    assert.equal(monitor.pings[1]!.body, "port-tracking J1: finished, exit 3\nRow 1: ä saved\n");
    assert.equal(monitor.pings[1]!.contentType, "text/plain; charset=utf-8");
    assert.deepEqual(warnings, []);
  });
  await t.step("URL with a trailing slash and a query: one slash, the query at the end", async () => {
    monitor.pings.length = 0;
    const [ping, warnings] = pingOf(monitor.url("/?rid=42"));
    ping.start();
    await ended(ping, 0, "x\n");
    assert.deepEqual(monitor.paths(), [
      `GET /ping/${CHECK}/start?rid=42`,
      `POST /ping/${CHECK}/0?rid=42`,
    ]);
    assert.deepEqual(warnings, []);
  });
  await t.step("end without start sends the end ping only", async () => {
    monitor.pings.length = 0;
    const [ping, warnings] = pingOf(monitor.url());
    await ended(ping, 1, "x\n");
    assert.deepEqual(monitor.paths(), [`POST /ping/${CHECK}/1`]);
    assert.deepEqual(warnings, []);
  });
});

Deno.test("a monitor that fails twice and then answers gets three tries, and no warning", async () => {
  await using monitor = new Monitor();
  monitor.answer = (_ping, count) => count <= 2 ? new Response("busy", { status: 503 }) : new Response("OK");
  const [ping, warnings] = pingOf(monitor.url());
  await ended(ping, 0, "body\n");
  assert.deepEqual(monitor.paths(), Array(3).fill(`POST /ping/${CHECK}/0`));
  assert.deepEqual(monitor.pings.map((p) => p.body), ["body\n", "body\n", "body\n"]);
  assert.deepEqual(warnings, []);
});

Deno.test("a monitor that never answers costs `tries` tries of `tryMs`, then one warning", async () => {
  await using monitor = new Monitor();
  monitor.answer = (_ping, _count, held) => held();
  const [ping, warnings] = pingOf(monitor.url(), { tryMs: 50, tries: 3 });
  await ended(ping, 3, "body\n"); // Only a hang reaches the bound: three tries of 50 ms end long before.
  assert.deepEqual(monitor.paths(), Array(3).fill(`POST /ping/${CHECK}/3`));
  assert.deepEqual(warnings, [
    `Ping to ${monitor.origin}/*** (exit 3) failed after 3 tries: timed out after 0.05 s; ` +
    "the run's exit code stays 3",
  ]);
});

Deno.test("after a stop the end ping gets one try of stoppedTryMs", async (t) => {
  await using monitor = new Monitor();
  await t.step("a failing monitor is not tried again", async () => {
    monitor.answer = () => new Response("busy", { status: 503 });
    const [ping, warnings] = pingOf(monitor.url(), { tries: 3 });
    await ended(ping, 130, "stopped\n", true);
    assert.deepEqual(monitor.paths(), [`POST /ping/${CHECK}/130`]);
    assert.deepEqual(warnings, [
      `Ping to ${monitor.origin}/*** (exit 130) failed: HTTP 503 (busy); the run's exit code stays 130`,
    ]);
  });
  await t.step("a silent monitor gets stoppedTryMs, not tryMs", async () => {
    monitor.pings.length = 0;
    monitor.answer = (_ping, _count, held) => held();
    // tryMs is far beyond the deadline of `ended`: only the stop's bound lets the ping end in time.
    const [ping, warnings] = pingOf(monitor.url(), { tryMs: AMPLE_MS * 10, stoppedTryMs: 50 });
    await ended(ping, 130, "stopped\n", true);
    assert.equal(monitor.pings.length, 1);
    assert.match(warnings.join("\n"), /^Ping to .* \(exit 130\) failed: timed out after 0\.05 s;/);
  });
});

Deno.test("a 4xx answer is a warning and is not tried again; 2xx other than 200 passes", async () => {
  await using monitor = new Monitor();
  monitor.answer = () => new Response("not found", { status: 404 });
  const [ping, warnings] = pingOf(monitor.url(), { tries: 3 });
  await ended(ping, 0, "x\n");
  assert.equal(monitor.pings.length, 1);
  assert.deepEqual(warnings, [
    `Ping to ${monitor.origin}/*** (exit 0) failed: HTTP 404 (not found); the run's exit code stays 0`,
  ]);

  monitor.answer = () => new Response(null, { status: 204 });
  const [again, none] = pingOf(monitor.url());
  await ended(again, 0, "x\n");
  assert.deepEqual(none, []);
});

Deno.test("monitor down (connection refused): a warning after the tries, no throw", async () => {
  const url = `http://127.0.0.1:${closedPort()}/ping/${CHECK}`;
  const [ping, warnings] = pingOf(url, { tries: 2 });
  ping.start();
  await until(() => warnings.length === 1); // end() would stop the start's second try.
  await ended(ping, 1, "x\n");
  assert.equal(warnings.length, 2, warnings.join("\n"));
  assert.match(
    warnings[0]!,
    /^Ping to http:\/\/127\.0\.0\.1:\d+\/\*\*\* \(start\) failed after 2 tries: .*refused/i,
  );
  assert.match(warnings[0]!, /; the run goes on$/);
  assert.match(warnings[1]!, /\(exit 1\) failed after 2 tries: .*refused.*; the run's exit code stays 1$/i);
});

Deno.test("no warning shows the URL's path, query or user info, whatever the failure quotes", async (t) => {
  const secrets = [CHECK, "s3cr3t-user", "pa55word", "rid=9931", "ping-key-7c1"];
  const check = (warnings: string[], shown: string) => {
    assert.ok(warnings.length > 0);
    for (const line of warnings) {
      assert.ok(line.includes(shown), line);
      for (const secret of secrets) assert.ok(!line.includes(secret), `${secret} in: ${line}`);
    }
  };
  await t.step("fetch's error quotes the URL (connection refused)", async () => {
    const port = closedPort();
    for (
      const url of [
        `http://127.0.0.1:${port}/${CHECK}`,
        `http://s3cr3t-user:pa55word@127.0.0.1:${port}/ping/${CHECK}/?rid=9931`,
        `http://127.0.0.1:${port}/ping-key-7c1/nightly?rid=9931`,
      ]
    ) {
      const [ping, warnings] = pingOf(url, { tries: 1 });
      ping.start();
      await ended(ping, 2, "x\n");
      check(warnings, `http://127.0.0.1:${port}/***`);
    }
  });
  await t.step("the monitor's answer echoes the URL, its path and the user info", async () => {
    await using monitor = new Monitor();
    monitor.answer = (ping) =>
      new Response(
        `no check at ${monitor.origin}${ping.path} (${ping.path}, ${CHECK}) s3cr3t-user:pa55word`,
        {
          status: 404,
        },
      );
    const url = monitor.url("?rid=9931").replace("http://", "http://s3cr3t-user:pa55word@");
    const [ping, warnings] = pingOf(url);
    ping.start();
    await ended(ping, 4, "x\n");
    check(warnings, `${monitor.origin}/***`);
  });
  await t.step("a URL in the body is shown as scheme://host/***", async () => {
    await using monitor = new Monitor();
    const [ping] = pingOf(monitor.url());
    await ended(ping, 0, `summary\nPinging ${monitor.url()} and ${monitor.url("/start")}\n`);
    assert.equal(
      monitor.pings[0]!.body,
      `summary\nPinging ${monitor.origin}/*** and ${monitor.origin}/***/start\n`,
    );
  });
});

Deno.test("end lets a start in flight have its current try only, then sends the end after it", async () => {
  await using monitor = new Monitor();
  monitor.answer = (ping, _count, held) => ping.path.endsWith("/start") ? held() : new Response("OK");
  // The pause before a second start try outlasts the test: only end() can cut it short.
  const [ping, warnings] = pingOf(monitor.url(), { tryMs: 50, retryWaitMs: AMPLE_MS * 10 });
  ping.start();
  await until(() => monitor.pings.length === 1);
  await ended(ping, 0, "done\n");
  assert.deepEqual(monitor.paths(), [`GET /ping/${CHECK}/start`, `POST /ping/${CHECK}/0`]);
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0]!, /\(start\) failed: (timed out after 0\.05 s|given up when the run ended)/);
});

Deno.test("pingBody: the summary line, then the whole log when it fits", () => {
  assert.equal(pingBody("S", utf8("a\nb\n")), "S\na\nb\n");
  assert.equal(pingBody("S", utf8("a\nlast without newline")), "S\na\nlast without newline\n");
  assert.equal(pingBody("S", new Uint8Array()), "S\n");
  assert.equal(pingBody("S", new Uint8Array([0x61, 0xff, 0x0a])), "S\na\uFFFD\n");
});

Deno.test("pingBody: a long multibyte log is cut to 100 kB at a line, its last lines kept", () => {
  // Lines of 1- to 4-byte characters, of varying lengths, 300 kB in all.
  const lines: string[] = [];
  for (let i = 0, size = 0; size < 300_000; i++) {
    lines.push(`Row ${i}: ${"ä€😀x".repeat(i % 40)} Zoë`);
    size += bytesOf(lines.at(-1)!) + 1;
  }
  const summary = "port-tracking J1: finished, exit 3 after 9 s; 9 rows: 6 succeeded, 3 failed, 0 resumed";
  const body = pingBody(summary, utf8(lines.join("\n") + "\n"));

  assert.ok(bytesOf(body) <= MAX_PING_BODY_BYTES, `${bytesOf(body)} bytes`);
  assert.ok(!body.includes("\uFFFD"), "no character was cut");
  assert.ok(body.endsWith("\n"));
  const [first, notice, ...kept] = body.slice(0, -1).split("\n");
  assert.equal(first, summary);
  const left = Number(/^… (\d+) earlier log lines left out/.exec(notice!)?.[1]);
  assert.equal(left + kept.length, lines.length);
  assert.deepEqual(kept, lines.slice(left), "the last lines, whole");
  // As many lines as fit: one more would pass the limit.
  const oneMore = bytesOf(body) + bytesOf(lines[left - 1]!) + 1;
  assert.ok(oneMore > MAX_PING_BODY_BYTES, `${oneMore}`);
});

Deno.test("pingBody: a last line longer than the limit leaves every line out; the summary stays one line", () => {
  const body = pingBody("S\nT", utf8(`short\n${"€".repeat(40_000)}\n`));
  assert.equal(body, "S T\n… 2 earlier log lines left out (a ping's body is at most 100 kB)\n");
  const long = pingBody("😀".repeat(30_000), utf8("a\n"));
  assert.ok(bytesOf(long) <= MAX_PING_BODY_BYTES);
  assert.ok(!long.includes("\uFFFD"));
});

Deno.test("end cuts a body past the limit again at a line", async () => {
  await using monitor = new Monitor();
  const [ping] = pingOf(monitor.url());
  const line = "ü".repeat(99);
  await ended(ping, 0, `S\n${`${line}\n`.repeat(600)}`);
  const body = monitor.pings[0]!.body;
  assert.ok(bytesOf(body) <= MAX_PING_BODY_BYTES);
  assert.match(body, /^S\n… \d+ earlier log lines left out[^\n]*\n(ü{99}\n)+$/);
});

Deno.test("summaryLine carries the outcome, the exit code and the rows counted", () => {
  const summary: RunSummary = {
    schema: SUMMARY_SCHEMA,
    job: "port-tracking",
    jobId: "JOB42",
    startedAt: "2026-12-01T02:00:00+01:00",
    endedAt: "2026-12-01T02:12:34+01:00",
    durationSeconds: 754.4,
    exitCode: 3,
    outcome: "finished",
    retryable: true,
    rows: { total: 120, succeeded: 117, failed: 3, resumed: 0 },
    failuresByKind: { "http-status": 1, timeout: 2 },
    failedRows: [],
    outputDir: "/srv/out",
    report: null,
    browsers: [],
  };
  assert.equal(
    summaryLine(summary),
    "port-tracking JOB42: finished, exit 3 after 754 s; 120 rows: 117 succeeded, 3 failed " +
      "(2 timeout, 1 http-status), 0 resumed; retryable",
  );
  assert.equal(
    summaryLine({
      ...summary,
      outcome: "not-started",
      exitCode: 1,
      retryable: false,
      durationSeconds: 0.2,
      rows: { total: 1, succeeded: 0, failed: 0, resumed: 0 },
      failuresByKind: {},
    }),
    "port-tracking JOB42: not-started, exit 1 after 0 s; 1 row: 0 succeeded, 0 failed, 0 resumed; " +
      "not retryable",
  );
});
