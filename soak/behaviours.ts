/**
 * What a soak row can do: each behaviour is a marker the local sandbox already plays (fixtures/sandbox),
 * with the status the spec and the opt-in options give a row that behaves so. The model (`model.ts`) is
 * built from this table; the draw (`draw.ts`) picks from it by weight.
 *
 * @module
 */
import { HOSTILE_VECTORS, type HostileVector, KILL_MARKERS, type KillCase } from "../fixtures/sandbox.ts";
import type { RowStatus } from "../lib/run/row_result.ts";

/** Job A (shipment tracking) or Job B (port container location). */
export type SoakJob = "A" | "B";

/** What decides a row's status besides its behaviour. */
export interface TryBudget {
  /** `--retries` of the run. */
  retries: number;
  /**
   * Requests for this row's value the sandbox answered before this run (a `FLAKYn` value counts its own
   * requests for as long as the sandbox runs, across a stopped run and its `--resume`).
   */
  priorRequests: number;
  /** Whether the soak killed this row's renderer or browser in this run. */
  killed: boolean;
  /** `--pool`: the run goes through the soak's pool of browserless instances. */
  pool: boolean;
}

/** One way a row behaves. */
export interface Behaviour {
  /** Short name, shown in the report's draw summary and in discrepancies. */
  name: string;
  /** Marker put into the row's value; "" for a plain row. */
  marker: string;
  /** The jobs whose sandbox pages play it. */
  jobs: readonly SoakJob[];
  /** Relative frequency in the draw. */
  weight: number;
  /** The row's status under `budget`. */
  status(budget: TryBudget): RowStatus;
  /** Job A: whether the PDF shows the reporting site's detail record (the frame pointed at it). */
  detail: boolean;
  /** Set on the rows that ask the soak to kill something. */
  kill?: KillCase;
  /**
   * Through a browserless pool, the page ends its own session: it asks for a local file, which browserless
   * (without `ALLOW_FILE_PROTOCOL`) answers by closing the whole browser. The row fails every try, and every
   * other row in progress on the session loses its try too.
   */
  endsPoolSession?: true;
}

const always = (status: RowStatus) => () => status;

/** Fails its first `failures` requests (counted across runs), then passes: one try and `retries` more. */
const failsFirst = (failures: number) => ({ retries, priorRequests }: TryBudget): RowStatus =>
  retries + 1 > Math.max(0, failures - priorRequests) ? "success" : "error";

/** A killed try fails for a cause that may pass: the retry (not killed again) passes. */
const killedOnce = ({ retries, killed }: TryBudget): RowStatus =>
  killed && retries === 0 ? "error" : "success";

const both: readonly SoakJob[] = ["A", "B"];

/**
 * The hostile pages whose local file browserless sees requested: a stylesheet, an image, a font or a script
 * of `file:` is a request of the page (the job refuses it, but browserless's own listener sees it first and
 * closes the browser). A frame, an object, a navigation to a local file… never reach it as a request of the
 * page (docs/chromium_notes.md#browserless-closes-the-browser-on-a-file-request).
 */
const SESSION_ENDING_VECTORS: ReadonlySet<HostileVector> = new Set(["stylesheet", "image", "font", "script"]);

/** A plain row: its page as it should be. */
export const NORMAL: Behaviour = {
  name: "normal",
  marker: "",
  jobs: both,
  weight: 60,
  status: always("success"),
  detail: true,
};

/** Every behaviour of the draw. */
export const BEHAVIOURS: readonly Behaviour[] = [
  NORMAL,
  { name: "flaky1", marker: "FLAKY1", jobs: both, weight: 6, status: failsFirst(1), detail: true },
  { name: "flaky2", marker: "FLAKY2", jobs: both, weight: 4, status: failsFirst(2), detail: true },
  { name: "rate429", marker: "RATE429", jobs: both, weight: 3, status: failsFirst(1), detail: true },
  { name: "down503", marker: "DOWN503", jobs: both, weight: 3, status: always("error"), detail: false },
  { name: "err404", marker: "ERR404", jobs: both, weight: 3, status: always("error"), detail: false },
  { name: "err500", marker: "ERR500", jobs: ["B"], weight: 2, status: always("error"), detail: false },
  { name: "short", marker: "SHORT", jobs: ["B"], weight: 2, status: always("error"), detail: false },
  // The portal answers after the sandbox's slowMs, past the soak's --http-timeout: every try times out.
  { name: "hang", marker: "SLOW", jobs: ["B"], weight: 1, status: always("error"), detail: false },
  // A script held for the sandbox's slowMs (3 s): the report loads late, within the soak's --wait-timeout.
  { name: "noload", marker: "HOLDLOAD", jobs: ["B"], weight: 2, status: always("success"), detail: false },
  { name: "noframe", marker: "NOFRAME", jobs: ["A"], weight: 2, status: always("error"), detail: false },
  // No detail record id: the shipment page is printed as it stands.
  {
    name: "search500",
    marker: "SEARCH500",
    jobs: ["A"],
    weight: 2,
    status: always("success"),
    detail: false,
  },
  { name: "noid", marker: "REDIRNOID", jobs: ["A"], weight: 1, status: always("success"), detail: false },
  {
    name: "searchhang",
    marker: "SEARCHSLOW",
    jobs: ["A"],
    weight: 1,
    status: always("success"),
    detail: false,
  },
  {
    name: "detailslow",
    marker: "DETAILSLOW",
    jobs: ["A"],
    weight: 1,
    status: always("success"),
    detail: false,
  },
  { name: "latefont", marker: "LATEFONT", jobs: both, weight: 2, status: always("success"), detail: true },
  { name: "lostfont", marker: "LOSTFONT", jobs: both, weight: 1, status: always("success"), detail: true },
  ...(Object.keys(HOSTILE_VECTORS) as HostileVector[]).map((vector): Behaviour => {
    const behaviour: Behaviour = {
      name: `hostile-${vector}`,
      marker: HOSTILE_VECTORS[vector].marker,
      jobs: both,
      weight: 0.6,
      status: always("success"),
      detail: false,
    };
    if (!SESSION_ENDING_VECTORS.has(vector)) return behaviour;
    return { ...behaviour, status: ({ pool }) => pool ? "error" : "success", endsPoolSession: true };
  }),
];

/**
 * The kill behaviours; the draw places them itself (at most one renderer kill and one browser kill a run;
 * under `--pool`, sometimes a row of lost-member rows, see `member_loss.ts`).
 */
export const KILL_BEHAVIOURS: Readonly<Record<KillCase, Behaviour>> = {
  rendererWhileLoading: killBehaviour("kill-renderer-loading", "rendererWhileLoading"),
  rendererWhilePrinting: killBehaviour("kill-renderer-printing", "rendererWhilePrinting"),
  browserDuringRow: killBehaviour("kill-browser", "browserDuringRow"),
  memberWhilePrinting: killBehaviour("lose-member", "memberWhilePrinting"),
};

function killBehaviour(name: string, kill: KillCase): Behaviour {
  return { name, marker: KILL_MARKERS[kill], jobs: both, weight: 0, status: killedOnce, detail: true, kill };
}

/** The behaviours job `job` can play. */
export function behavioursOf(job: SoakJob): Behaviour[] {
  return BEHAVIOURS.filter((behaviour) => behaviour.jobs.includes(job));
}
