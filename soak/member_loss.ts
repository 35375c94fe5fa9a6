/**
 * The member loss of a `--pool` run. The draw puts as many lost-member rows (`KILLMEMBER`) one after another
 * as the run has rows at once; the sandbox holds each in its print until all of them wait there. Every row in
 * progress is then one of them, so when the soak kills the member serving the run, exactly those rows were on
 * it: the model knows which rows the lost member held without guessing from timing.
 *
 * @module
 */
import { type KillCase, killPhase, type RecordedRequest } from "../fixtures/sandbox.ts";
import { HOLD_PATH } from "../fixtures/sandbox/holding_pages.ts";
import type { DrawnRow } from "./draw.ts";

/** The kill case of a lost-member row. */
export const MEMBER_LOSS: KillCase = "memberWhilePrinting";

/**
 * How long the rows may wait for each other before the soak gives the loss up and lets them print: well
 * within the job's 120 s print timeout, far beyond a row's work on a loaded host.
 */
const WAIT_GUARD_MS = 60_000;

/** The lost-member rows of one job run, held until they all wait, then released once the member is lost. */
export class MemberLoss {
  /** The rows to hold: the draw's lost-member rows whose loss did not happen yet. */
  readonly rows: readonly DrawnRow[];
  readonly #waiting = new Map<string, () => void>();
  #firstWaitAt: number | undefined;
  #released = false;

  /** `lost`: the values whose loss (or its attempt) is over in this soak: they print at once. */
  constructor(rows: readonly DrawnRow[], lost: ReadonlySet<string>) {
    this.rows = rows.filter((row) => row.behaviour.kill === MEMBER_LOSS && !lost.has(row.value));
  }

  /** The sandbox's `holdUntil`: holds a lost-member row's print until {@linkcode release}. */
  readonly hold = (request: RecordedRequest): Promise<void> | undefined => {
    if (request.path !== `${HOLD_PATH}/block` || request.query.phase !== killPhase(MEMBER_LOSS)) {
      return undefined;
    }
    const value = request.query.value ?? "";
    if (this.#released || !this.rows.some((row) => row.value === value)) return Promise.resolve();
    this.#firstWaitAt ??= performance.now();
    return new Promise((resolve) => {
      this.#waiting.get(value)?.();
      this.#waiting.set(value, resolve);
    });
  };

  /** Every row to hold waits in its print: the member serving them is to be lost now. */
  get ready(): boolean {
    return !this.#released && this.rows.length > 0 && this.rows.every((row) => this.#waiting.has(row.value));
  }

  /** Why the loss is given up, when some rows waited too long for the others; else undefined. */
  overdue(): string | undefined {
    if (this.#released || this.#firstWaitAt === undefined) return undefined;
    if (performance.now() - this.#firstWaitAt < WAIT_GUARD_MS) return undefined;
    return `only ${this.#waiting.size} of the ${this.rows.length} lost-member rows waited together within ${
      WAIT_GUARD_MS / 1000
    } s`;
  }

  /** Lets every held row go on (after the loss, at the guard, or when the run ended), and any later one. */
  release(): void {
    this.#released = true;
    for (const resolve of this.#waiting.values()) resolve();
    this.#waiting.clear();
  }
}
