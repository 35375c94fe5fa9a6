/**
 * What a hostile page could do outside its own tab, refused browser-wide: open windows, download files,
 * get permissions. The tab's own requests are the page guard's (`lib/browser/guard/page_guard.ts`).
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** A job tab as the lockdown sees it: what counts the refusals of its page. */
export interface RefusingTab {
  /** Counts a refusal of `what` (a window, a download) for the row's log line. */
  refused(what: string): void;
}

/** The job's tabs as the lockdown sees them: a tab that dies is replaced by a new one. */
export interface JobTabs {
  /** The job's tabs now. */
  readonly tabs: readonly RefusingTab[];
  /** The job's tab with this target id, if any. */
  tabOf(targetId: string): RefusingTab | undefined;
  /** Settles once no job tab is being opened. */
  settled(): Promise<unknown>;
}

/**
 * Locks the browser down for the job's tabs, before they load anything
 * (docs/chromium_notes.md#popups-downloads-and-permissions):
 * - windows the tabs' pages open (`window.open`, `target=_blank`) are closed as soon as they appear, so
 *   they are never printed and cost nothing; in a browser the job started, every page but the tabs is one;
 * - downloads are refused, so a page writes nothing anywhere;
 * - every permission is denied without a prompt (there is nobody to answer one, not even with `--visible`).
 *
 * Each refusal is counted on the tab it came from (the first tab when that is unknown), for the row's log
 * line.
 *
 * @param ownsBrowser true for a browser the job started (nothing else runs in it); false when attached.
 */
export async function lockDownBrowser(
  connection: CdpConnection,
  tabs: JobTabs,
  ownsBrowser: boolean,
): Promise<void> {
  const first = () => tabs.tabs[0]!;
  connection.on("Target.targetCreated", async ({ targetInfo }) => {
    if (targetInfo.type !== "page") return;
    // A page that appears while the job opens a tab in place of a dead one may be that tab.
    await tabs.settled();
    if (tabs.tabOf(targetInfo.targetId) !== undefined) return;
    const opener = targetInfo.openerId === undefined ? undefined : tabs.tabOf(targetInfo.openerId);
    if (!ownsBrowser && opener === undefined) return;
    (opener ?? first()).refused(targetInfo.url || "a new window");
    connection.send("Target.closeTarget", { targetId: targetInfo.targetId }, SMALL_CALL_MS).catch(
      () => {},
    );
  });
  // A download from a tab's top frame names it (a page's top frame id is its target id).
  connection.on(
    "Browser.downloadWillBegin",
    ({ url, frameId }) => (tabs.tabOf(frameId) ?? first()).refused(url),
  );
  await Promise.all([
    // Pages only: frames and workers would add an event per navigation for nothing.
    connection.send(
      "Target.setDiscoverTargets",
      { discover: true, filter: [{ type: "page" }] },
      SMALL_CALL_MS,
    ),
    connection.send(
      "Browser.setDownloadBehavior",
      { behavior: "deny", eventsEnabled: true },
      SMALL_CALL_MS,
    ),
    // Granting an empty list denies every other permission, for every origin.
    connection.send("Browser.grantPermissions", { permissions: [] }, SMALL_CALL_MS),
  ]);
}
