/**
 * For the diagnostics that drive Chromium over raw CDP: a Chromium of their own (the project's flags and a
 * fresh profile, as the jobs start it) and a DevTools session on the tab it opened, with page events on.
 *
 * @module
 */
import { CdpConnection } from "../../lib/browser/cdp/connection.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";

/** Deadline of each call here. */
const CALL_MS = 10_000;

/** The browser's first tab; disposing it closes the browser. */
export interface FirstTab extends AsyncDisposable {
  cdp: CdpConnection;
  /** The tab's flat session. */
  sessionId: string;
}

/** Starts Chromium and attaches to the tab it opened. */
export async function openFirstTab(): Promise<FirstTab> {
  const chromium = await ChromiumProcess.launch({
    executable: findChromium(),
    headless: true,
    startTimeoutMs: 20_000,
  });
  try {
    const cdp = await CdpConnection.connect(await chromium.endpoint, { timeoutMs: 20_000 });
    const { targetInfos } = await cdp.send("Target.getTargets", {}, CALL_MS);
    const targetId = targetInfos.find((t) => t.type === "page")?.targetId;
    if (targetId === undefined) throw new Error("the browser shows no page");
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true }, CALL_MS);
    await cdp.send("Page.enable", {}, CALL_MS, sessionId);
    return {
      cdp,
      sessionId,
      [Symbol.asyncDispose]: async () => {
        await cdp.send("Browser.close", {}, CALL_MS).catch(() => {});
        await cdp.close();
        await chromium.close(2_000);
      },
    };
  } catch (error) {
    await chromium.close();
    throw error;
  }
}
