/**
 * Functions run in a page: how one is sent (as source text, with its arguments as JSON data, never as code),
 * and the ones the browser layer runs itself.
 *
 * @module
 */
import type { Protocol } from "devtools-protocol/types/protocol.d.ts";

/** A function run in the page; it must be self-contained (it is sent as source text). */
// deno-lint-ignore no-explicit-any
export type PageFunction<R> = (...args: any[]) => R | Promise<R>;

/** The source text that calls `fn` with `args`; the arguments travel as JSON data, never as code. */
export function callExpression(fn: PageFunction<unknown>, args: readonly unknown[]): string {
  return `(${fn.toString()})(...${JSON.stringify(args)})`;
}

/** Runs in the page: the element `selector` matches, or null. */
export function findElement(selector: string): Element | null {
  return document.querySelector(selector);
}

/** Runs in the page: points the frame element `frameSelector` matches at `source`. */
export function setFrameSource(frameSelector: string, source: string): void {
  document.querySelector(frameSelector)?.setAttribute("src", source);
}

/** Runs in the page: resolves true once `selector` matches, false after `timeoutMs`. */
export function waitForSelectorInPage(selector: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const found = () => document.querySelector(selector) !== null;
    if (found()) return resolve(true);
    const observer = new MutationObserver(() => found() && finish(true));
    const timer = setTimeout(() => finish(false), timeoutMs);
    function finish(matched: boolean) {
      observer.disconnect();
      clearTimeout(timer);
      resolve(matched);
    }
    observer.observe(document, { childList: true, subtree: true, attributes: true });
  });
}

/** What a function run in the page threw, as `Runtime.evaluate` reports it: an Error's description, or a value. */
export function thrownText(details: Protocol.Runtime.ExceptionDetails): string {
  const thrown = details.exception;
  return thrown?.description ??
    (thrown !== undefined && "value" in thrown ? String(thrown.value) : details.text);
}
