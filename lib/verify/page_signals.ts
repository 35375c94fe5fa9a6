/**
 * What a tab's page shows of itself, for `--verify`'s wall check (`bot_walls.ts`): its title, the start of
 * its visible text, the addresses of its scripts and frames, and the headers of its answer.
 *
 * @module
 */
import type { Tab } from "../browser/tab/tab.ts";
import { SMALL_CALL_MS } from "../timings.ts";
import { type PageSignals, SIGNAL_TEXT_CHARS } from "./bot_walls.ts";

/** Runs in the page: its title, the first `chars` of its visible text, and its script and frame addresses. */
export function pageSignalsInPage(chars: number): Omit<PageSignals, "headers"> {
  const text = (document.body?.innerText ?? "").replace(/\s+/g, " ").trim().slice(0, chars);
  const resources = [...document.querySelectorAll("script[src], iframe[src], frame[src]")]
    .map((element) => (element as HTMLScriptElement | HTMLIFrameElement).src);
  return { title: document.title, text, resources };
}

/**
 * The signals of `tab`'s page; `headers` are those of the answer that brought it (the tab's own record of it
 * when not given).
 */
export async function pageSignals(
  tab: Tab,
  headers?: Readonly<Record<string, string>>,
): Promise<PageSignals> {
  const shown = await tab.evaluate(
    pageSignalsInPage,
    [SIGNAL_TEXT_CHARS],
    SMALL_CALL_MS,
    "Reading what the page shows",
  );
  return {
    ...shown,
    resources: [...shown.resources, ...tab.frameUrls()],
    headers: headers ?? tab.answers.of()?.headers ?? {},
  };
}
