/**
 * The pool `deno task soak --pool` runs through: two browserless instances behind HAProxy
 * (`fixtures/browserless_pair.ts`), started once for the soak. Its browsers are the pool's, not a run's: the
 * soak finds them under the members' folders, loses the member that serves a run when the draw says so, brings
 * it back before the next run, and checks after each run that the pool holds no session of it.
 *
 * @module
 */
import type { BrowserlessPool } from "../fixtures/browserless.ts";
import { type BrowserlessPair, startBrowserlessPair } from "../fixtures/browserless_pair.ts";
import { AMPLE_MS } from "../tests/helpers/host_speed.ts";
import { waitUntil } from "../tests/helpers/job_process.ts";
import {
  browserProcessesLeft,
  browserProcessesUnder,
  isAlive,
  isMainBrowser,
} from "../tests/helpers/processes.ts";

/**
 * How long a run's session may take to leave the pool after the job exited (browserless closes its browser):
 * it must, so only a session left behind runs the wait out; a loaded host may take seconds.
 */
const SESSION_GONE_MS = AMPLE_MS;

/** Each member's sessions at once (`CONCURRENT`) and connections that may wait for one (`QUEUED`). */
const MEMBER_LIMITS = { concurrent: 2, queued: 4 } as const;

/** Every session and queue place of the pool taken by other clients, until released. */
export interface PoolFill {
  /**
   * Lets the places go and waits until the browsers their sessions started have exited, so that the run's
   * own browser is then the only one the soak finds on a member. Idempotent.
   */
  release(): Promise<void>;
}

/** The soak's pool. */
export class SoakPool implements AsyncDisposable {
  readonly #pair: BrowserlessPair;
  /** The member lost in the current run, brought back by {@linkcode afterRun}. */
  #lost: 0 | 1 | undefined;

  private constructor(pair: BrowserlessPair) {
    this.#pair = pair;
  }

  /** Starts the pair: two sessions each at most, a few waiting; the job asks for its own session limit. */
  static async start(): Promise<SoakPool> {
    const token = `soak-${crypto.randomUUID()}`;
    return new SoakPool(await startBrowserlessPair({ ...MEMBER_LIMITS, timeoutMs: 30_000, token }));
  }

  /** What the jobs' `--browser-url` takes: HAProxy's address. */
  get wsUrl(): string {
    return this.#pair.wsUrl;
  }

  /** The folders every process of the members names now (their browsers, renderers…). */
  markers(): string[] {
    return this.#pair.members.map((member) => member.marker);
  }

  /**
   * The member that serves the run's session: the one running a browser (the soak runs one job at a time,
   * so one session). Returns why there is none, or the member.
   */
  async serving(): Promise<BrowserlessPool | string> {
    const serving: BrowserlessPool[] = [];
    for (const member of this.#pair.members) {
      if ((await browserProcessesUnder(member.marker)).some(isMainBrowser)) serving.push(member);
    }
    return serving.length === 1 ? serving[0]! : `${serving.length} members run a browser`;
  }

  /** SIGKILLs the member serving the run, whole (as a host losing its power). Returns why it could not. */
  async loseServingMember(): Promise<string | undefined> {
    const member = await this.serving();
    if (typeof member === "string") return member;
    await member.kill();
    this.#lost = this.#pair.members.indexOf(member) as 0 | 1;
    return undefined;
  }

  /**
   * Takes every session and queue place of both members, as other jobs sharing the pool would: a job that
   * starts now is turned away with HTTP 429 (the balancer passes a member's answer on) until the fill is
   * released. The places are taken on the members themselves, behind the balancer's back, as jobs of another
   * balancer or of the members' own address would.
   */
  async fill(): Promise<PoolFill> {
    const holders: WebSocket[] = [];
    const browsers: number[] = [];
    const hold = (member: BrowserlessPool) => {
      const holder = new WebSocket(`${member.wsUrl}&timeout=0`);
      // A place still waiting in the queue when released is refused: nothing to hear.
      holder.onerror = () => {};
      holders.push(holder);
    };
    for (const member of this.#pair.members) {
      for (let i = 0; i < MEMBER_LIMITS.concurrent; i++) hold(member);
      await waitUntil(
        async () => (await member.pressure()).running === MEMBER_LIMITS.concurrent,
        AMPLE_MS,
        "the member's sessions taken",
      );
      for (let i = 0; i < MEMBER_LIMITS.queued; i++) hold(member);
      await waitUntil(
        async () => (await member.pressure()).queued === MEMBER_LIMITS.queued,
        AMPLE_MS,
        "the member's queue taken",
      );
      const started = (await browserProcessesUnder(member.marker)).filter(isMainBrowser);
      browsers.push(...started.map((browser) => browser.pid));
    }
    let released: Promise<void> | undefined;
    return {
      release: () =>
        released ??= (async () => {
          for (const holder of holders) holder.close();
          await waitUntil(
            () => browsers.every((pid) => !isAlive(pid)),
            AMPLE_MS,
            "the fill's browsers gone",
          );
        })(),
    };
  }

  /**
   * After a run: brings a lost member back, then says what the run left in the pool: sessions still running
   * or waiting on a member, browser processes still alive.
   */
  async afterRun(): Promise<string[]> {
    if (this.#lost !== undefined) {
      await this.#pair.restartMember(this.#lost);
      this.#lost = undefined;
    }
    const left: string[] = [];
    for (const [index, member] of this.#pair.members.entries()) {
      const name = `pool member b${index + 1}`;
      const sessions = await sessionsLeft(member).then(
        (held) => held === "" ? "" : `still holds ${held}`,
        (error) => `does not answer /pressure (${error})`,
      );
      if (sessions !== "") left.push(`${name} ${sessions} after the run`);
      for (const pid of await browserProcessesLeft(member.marker)) {
        left.push(`browser process ${pid} of ${name} outlived the run`);
      }
    }
    return left;
  }

  /** Stops HAProxy and both members. */
  close(): Promise<void> {
    return this.#pair.close();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** "1 running, 0 queued" when `member` still has sessions after {@linkcode SESSION_GONE_MS}, else "". */
async function sessionsLeft(member: BrowserlessPool): Promise<string> {
  const until = Date.now() + SESSION_GONE_MS;
  for (;;) {
    const { running, queued } = await member.pressure();
    if (running === 0 && queued === 0) return "";
    if (Date.now() > until) return `${running} session(s) running, ${queued} queued`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
