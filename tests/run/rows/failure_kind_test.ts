import assert from "node:assert/strict";
import {
  BrowserGoneError,
  CaptureCheckError,
  CdpTimeoutError,
  ConnectionError,
  FrameNotFoundError,
  HttpStatusError,
  NavigationError,
  PageScriptError,
  ShortBodyError,
  TabGoneError,
  TimestampFailedError,
} from "../../../lib/errors.ts";
import { failureKind } from "../../../lib/run/rows/failure_kind.ts";
import { mayPass } from "../../../lib/run/rows/retry.ts";

Deno.test("failureKind: each error of a row under one kind of the closed list", () => {
  const cases: [unknown, string][] = [
    [new CdpTimeoutError("Printing timed out after 60 s"), "timeout"],
    [new ConnectionError("the port portal did not answer within 30 s", { timedOut: true }), "timeout"],
    [new NavigationError("net::ERR_TIMED_OUT"), "timeout"],
    [new NavigationError("net::ERR_CONNECTION_TIMED_OUT"), "timeout"],
    [new NavigationError("loading http://x/: the server did not answer"), "timeout"],
    [new HttpStatusError("the port portal answered HTTP 503", 503), "http-status"],
    [new ConnectionError("the port portal could not be reached: Connection refused"), "connection"],
    [new NavigationError("net::ERR_CONNECTION_REFUSED"), "connection"],
    [new NavigationError("net::ERR_NAME_NOT_RESOLVED"), "connection"],
    [new ShortBodyError("the port portal answered only 15 characters"), "short-body"],
    [new FrameNotFoundError("Iframe not found on page"), "frame-not-found"],
    [new CaptureCheckError("blocked by a bot check (captcha)", { mayPass: true }), "verification"],
    [
      new CaptureCheckError('the page says "NO DATA"', { mayPass: false, check: "fail-on-text" }),
      "fail-on-text",
    ],
    [new TimestampFailedError("no document timestamp after 1 round(s) of 2 authority(ies)"), "timestamp"],
    [new BrowserGoneError("the browser exited"), "browser-lost"],
    [new TabGoneError("the renderer crashed"), "browser-lost"],
    [new NavigationError("net::ERR_FILE_NOT_FOUND"), "other"],
    [new PageScriptError("TypeError: x is undefined"), "other"],
    [new Error("anything else"), "other"],
    ["a thrown string", "other"],
  ];
  for (const [error, kind] of cases) assert.equal(failureKind(error), kind, String(error));
});

Deno.test("mayPass: a load failure may pass when the server was down or slow, not when the address cannot load", () => {
  assert.equal(mayPass(new NavigationError("net::ERR_CONNECTION_RESET")), true);
  assert.equal(mayPass(new NavigationError("net::ERR_TIMED_OUT")), true);
  assert.equal(mayPass(new NavigationError("loading http://x/: the server did not answer")), true);
  assert.equal(mayPass(new NavigationError("net::ERR_FILE_NOT_FOUND")), false);
  assert.equal(mayPass(new NavigationError("net::ERR_BLOCKED_BY_CLIENT")), false);
});
