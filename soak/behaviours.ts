/**
 * What a soak row can do: each behaviour is a marker the local sandbox already plays (fixtures/sandbox),
 * with the status the spec and the opt-in options give a row that behaves so. The model (`model.ts`) is
 * built from this table; the draw (`draw.ts`) picks from it by weight.
 *
 * Under `--verify` and `--fail-on-text` (drawn per run, see `draw.ts`), a row the spec's job captures may fail:
 * a bot wall, a 5xx page, no detail record id, a blank PDF, a PDF without the row's number, a page that says
 * the soak's {@linkcode FAIL_ON_TEXT}. Where the soak knows why a row fails, its `failure` says with what
 * error and whether `--retries` tries it again.
 *
 * @module
 */
import {
  HOSTILE_VECTORS,
  type HostileVector,
  KILL_MARKERS,
  type KillCase,
  NOT_FOUND_TEXT,
  otherContainerFor,
  VERIFY_MARKERS,
} from "../fixtures/sandbox.ts";
import type { JobKind } from "../lib/config/option_types.ts";
import type { RowStatus } from "../lib/run/rows/row_result.ts";
import type { FailureKind } from "../lib/run/watch/run_summary.ts";

/**
 * Each job's letter, as the soak's command line (`--job A|B`) and its report name it: Job A (shipment
 * tracking), Job B (port container location). Inside, the soak names a job by its `JobKind`, as `lib/` does.
 */
export const JOB_LETTERS: Readonly<Record<JobKind, "A" | "B">> = { shipment: "A", port: "B" };

/** The one `--fail-on-text` expression the soak draws: what the port portal says for a mistyped container. */
export const FAIL_ON_TEXT = NOT_FOUND_TEXT;

/** What decides a row's status besides its behaviour. */
export interface TryBudget {
  /** The job the row is a row of. */
  job: JobKind;
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
  /** `--verify` of the run. */
  verify: boolean;
  /** `--fail-on-text` {@linkcode FAIL_ON_TEXT} of the run. */
  failOnText: boolean;
}

/** Why a row fails, where the soak knows it. */
export interface Failure {
  /** The row's last error (its log's "failed: …"). */
  reason: RegExp;
  /**
   * Whether `--retries` tries it again (a 5xx or 429, a bot wall, a blank PDF, Job A's missing frame): the
   * same rule makes a finished run's summary `retryable` (docs/operations.md, "Watching runs").
   */
  retried: boolean;
  /**
   * Whether a later run may pass it, where that is not what `retried` says: a row that got no timestamp is not
   * tried again by its run (the page is not captured again), but the authorities may answer a later one.
   */
  mayPass?: boolean;
  /** Its kind in the run summary's `failuresByKind` (the closed list of docs/operations.md). */
  kind: FailureKind;
}

/** One way a row behaves. */
export interface Behaviour {
  /** Short name, shown in the report's draw summary and in discrepancies. */
  name: string;
  /** Marker put into the row's value; "" for a plain row. */
  marker: string;
  /** The jobs whose sandbox pages play it. */
  jobs: readonly JobKind[];
  /** Relative frequency in the draw. */
  weight: number;
  /** The row's status under `budget`. */
  status(budget: TryBudget): RowStatus;
  /**
   * When the row fails under `budget` and the soak knows why: with what and whether it is tried again.
   * Undefined for the rows whose failure depends on timing or on what the soak killed.
   */
  failure?(budget: TryBudget): Failure | undefined;
  /** Job A: whether the PDF shows the reporting site's detail record (the frame pointed at it). */
  detail: boolean;
  /**
   * When the row succeeds, what its PDF shows in place of the row's own page: these texts (another
   * container's report, a block page), or nothing at all ("blank"). Unset: the row's own page.
   */
  printed?: "blank" | ((value: string) => string[]);
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

const both: readonly JobKind[] = ["shipment", "port"];

/** The status and the failure of a row that fails exactly when `outcome` gives a failure. */
function failsWith(
  outcome: (budget: TryBudget) => Failure | undefined,
): Pick<Behaviour, "status" | "failure"> {
  return { status: (budget) => outcome(budget) === undefined ? "success" : "error", failure: outcome };
}

/** Job A's spec error for a shipment page without the frame; Job A tries it again. */
const FRAME_NOT_FOUND: Failure = {
  reason: /^Iframe not found on page$/,
  retried: true,
  kind: "frame-not-found",
};

/**
 * A row whose page answers HTTP `status` on every try: Job B's POST fails on it; Job A's page has no frame,
 * which the spec's job finds, and `--verify` the status before it. A 5xx is tried again, a 404 only as a
 * missing frame.
 */
const httpError = (status: number) => ({ job, verify }: TryBudget): Failure => {
  const retried = status >= 500;
  const kind = "http-status";
  if (job === "port") {
    return { reason: new RegExp(`^the port portal answered HTTP ${status}\\b`), retried, kind };
  }
  return verify
    ? { reason: new RegExp(`^the shipment page answered HTTP ${status}$`), retried, kind }
    : FRAME_NOT_FOUND;
};

/** `--verify`: a Job A row whose detail record id was not found; not tried again. */
const noDetailId = ({ verify }: TryBudget): Failure | undefined =>
  verify ? { reason: /^no detail record id for FCR \S+$/, retried: false, kind: "verification" } : undefined;

/** `--verify`: a print that came out blank; tried again (a page caught too early may print next time). */
const blankUnderVerify = ({ verify }: TryBudget): Failure | undefined =>
  verify ? { reason: /^the PDF is blank$/, retried: true, kind: "verification" } : undefined;

/**
 * `--verify`: the detail frame did not load within the --wait-timeout; tried again. A problem `--verify`
 * noticed, so a verification, not a timeout.
 */
const DETAIL_NEVER_LOADED: Failure = {
  reason: /^the detail frame timed out \(/,
  retried: true,
  kind: "verification",
};

/** `--fail-on-text`: the printed page says the soak's expression; not tried again. */
const SAYS_FAIL_TEXT: Failure = {
  reason: new RegExp(`^the page says "${FAIL_ON_TEXT}"$`),
  retried: false,
  kind: "fail-on-text",
};

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
  // Job A's error page has no frame: the spec's job waits for it in vain (tried again); --verify reads the
  // status first, and tries a 404 no more. Job B's POST fails on its status with or without --verify.
  { name: "down503", marker: "DOWN503", jobs: both, weight: 3, ...failsWith(httpError(503)), detail: false },
  { name: "err404", marker: "ERR404", jobs: both, weight: 3, ...failsWith(httpError(404)), detail: false },
  {
    name: "err500",
    marker: "ERR500",
    jobs: ["port"],
    weight: 2,
    ...failsWith(httpError(500)),
    detail: false,
  },
  {
    name: "short",
    marker: "SHORT",
    jobs: ["port"],
    weight: 2,
    ...failsWith(() => ({
      reason: /^the port portal answered only \d+ characters/,
      retried: false,
      kind: "short-body",
    })),
    detail: false,
  },
  // The portal holds its answer until the sandbox closes (soak.ts): every try runs out the --http-timeout.
  { name: "hang", marker: "SLOW", jobs: ["port"], weight: 1, status: always("error"), detail: false },
  // A script the soak holds for 3 s (job_run.ts): the report loads late. Its text comes before the script, so
  // one printed before its load (past the --wait-timeout) shows the same: the hold decides nothing.
  { name: "noload", marker: "HOLDLOAD", jobs: ["port"], weight: 2, status: always("success"), detail: false },
  // Under --verify too: the page answered 200 and is no wall, only its frame is missing.
  {
    name: "noframe",
    marker: "NOFRAME",
    jobs: ["shipment"],
    weight: 2,
    ...failsWith(() => FRAME_NOT_FOUND),
    detail: false,
  },
  // No detail record id: the shipment page is printed as it stands; --verify fails the row.
  {
    name: "search500",
    marker: "SEARCH500",
    jobs: ["shipment"],
    weight: 2,
    ...failsWith(noDetailId),
    detail: false,
  },
  {
    name: "noid",
    marker: "REDIRNOID",
    jobs: ["shipment"],
    weight: 1,
    ...failsWith(noDetailId),
    detail: false,
  },
  // The search holds its answer until the sandbox closes: it runs out the --http-timeout, no id either.
  {
    name: "searchhang",
    marker: "SEARCHSLOW",
    jobs: ["shipment"],
    weight: 1,
    ...failsWith(noDetailId),
    detail: false,
  },
  // The detail page sends its top and holds the rest until the sandbox closes: the frame commits but never
  // loads, and its load runs out the --wait-timeout. The page is printed as it stands; --verify fails the row
  // (another try may load it).
  {
    name: "detailslow",
    marker: "DETAILSLOW",
    jobs: ["shipment"],
    weight: 1,
    ...failsWith(({ verify }) => verify ? DETAIL_NEVER_LOADED : undefined),
    detail: false,
  },
  { name: "latefont", marker: "LATEFONT", jobs: both, weight: 2, status: always("success"), detail: true },
  { name: "lostfont", marker: "LOSTFONT", jobs: both, weight: 1, status: always("success"), detail: true },
  ...verifyBehaviours(),
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
 * The pages the spec's job captures as any other and `--verify` or `--fail-on-text` fail
 * (fixtures/sandbox/verify_pages.ts); a function declaration, so that the table above can list them.
 */
function verifyBehaviours(): Behaviour[] {
  const { botWall, detail500, blankPrint, otherBox, notFound } = VERIFY_MARKERS;
  return [
    // Job A: a 403 challenge without the frame. The spec's job waits for the frame in vain (tried again, as
    // any missing frame); --verify names the wall first, before the status. Job B: a 200 block page, printed
    // as the report unless --verify sees the wall.
    {
      name: "botwall",
      marker: botWall,
      jobs: both,
      weight: 2,
      ...failsWith(({ job, verify }) => {
        if (verify) {
          const wall = job === "shipment" ? "Cloudflare challenge" : "Imperva Incapsula";
          return {
            reason: new RegExp(`^blocked by a bot check \\(${wall}\\)$`),
            retried: true,
            kind: "verification",
          };
        }
        return job === "shipment" ? FRAME_NOT_FOUND : undefined;
      }),
      detail: false,
      printed: () => ["Incapsula incident ID"],
    },
    // The detail page answers 500: printed as it stands, unless --verify reads its status (a 5xx: tried again).
    {
      name: "detail500",
      marker: detail500,
      jobs: ["shipment"],
      weight: 2,
      ...failsWith(({ verify }) =>
        verify
          ? { reason: /^the detail page answered HTTP 500$/, retried: true, kind: "http-status" }
          : undefined
      ),
      detail: false,
    },
    {
      name: "blankprint",
      marker: blankPrint,
      jobs: both,
      weight: 2,
      ...failsWith(blankUnderVerify),
      detail: false,
      printed: "blank",
    },
    // Another container's report: it does not show the row's number, which another try cannot change.
    {
      name: "otherbox",
      marker: otherBox,
      jobs: ["port"],
      weight: 2,
      ...failsWith(({ verify }) =>
        verify
          ? { reason: /^the PDF does not show container \S+$/, retried: false, kind: "verification" }
          : undefined
      ),
      detail: false,
      printed: (value) => [otherContainerFor(value)],
    },
    // It shows the row's number, so --verify alone passes it; only --fail-on-text reads what it says.
    {
      name: "notfound",
      marker: notFound,
      jobs: ["port"],
      weight: 2,
      ...failsWith(({ failOnText }) => failOnText ? SAYS_FAIL_TEXT : undefined),
      detail: false,
    },
  ];
}

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
export function behavioursOf(job: JobKind): Behaviour[] {
  return BEHAVIOURS.filter((behaviour) => behaviour.jobs.includes(job));
}
