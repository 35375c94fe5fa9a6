/**
 * What a browser pool meant by refusing a connection, read from the WebSocket client's message ("Unexpected
 * server response: 429", "connect ECONNREFUSED …"): whether waiting may cure it (a full pool, one whose
 * hosts restart) or not (a refused token, anything unknown), with what to do about it; and the tally of a
 * wait's refusals, as the log names them.
 *
 * @module
 */

/** A pool's refusal of one connection. */
export interface PoolRefusal {
  /** How the log names the answer: "HTTP 429", "connection refused", "connection reset". */
  answer: string;
  /** What the answer means and what to do about it, when the answer is a pool's. */
  meaning?: string;
  /** The connection's error with what the answer means and what to do. */
  message: string;
  /** True when the same pool may give a browser later: the job waits and asks again. */
  waits: boolean;
}

/** What a pool means by answering the WebSocket upgrade with an HTTP status, and what to do about it. */
const POOL_ANSWERS: Readonly<Record<string, string>> = {
  401: "the pool refused the token: token= in --browser-url must be the pool's TOKEN",
  403: "the pool refused the token: token= in --browser-url must be the pool's TOKEN",
  408:
    "the session limit ran out before the pool's browser was ready: a loaded pool, or timeout= in --browser-url is too short",
  429:
    "the pool is full: its CONCURRENT sessions and QUEUED places are all taken, or with HEALTH=true its host is overloaded",
  502: "no browser host answered behind the pool's address",
  503: "no browser host is available behind the pool's address",
};

/** Statuses a pool answers while it is full or its hosts restart; any other status stays a failure. */
const WAITING_STATUSES = new Set(["408", "429", "502", "503"]);

/** Socket failures of a pool that is down or restarting, and how the log names them. */
const SOCKET_ANSWERS: readonly [RegExp, string][] = [
  [/ECONNREFUSED/, "connection refused"],
  [/ECONNRESET|socket hang up/, "connection reset"],
];

/**
 * Reads `message`, the error of one connection to a pool.
 *
 * @example
 * ```ts
 * poolRefusal("Cannot connect …: Unexpected server response: 429").waits; // true
 * poolRefusal("Cannot connect …: Unexpected server response: 401").waits; // false
 * ```
 */
export function poolRefusal(message: string): PoolRefusal {
  const status = /Unexpected server response: (\d{3})\b/.exec(message)?.[1];
  if (status !== undefined) {
    const meaning = POOL_ANSWERS[status];
    return {
      answer: `HTTP ${status}`,
      ...(meaning ? { meaning, message: `${message} (${meaning})` } : { message }),
      waits: WAITING_STATUSES.has(status),
    };
  }
  const socket = SOCKET_ANSWERS.find(([pattern]) => pattern.test(message));
  if (socket !== undefined) {
    const meaning = "the pool is down or restarting";
    return { answer: socket[1], meaning, message: `${message} (${meaning})`, waits: true };
  }
  return { answer: "no answer", message, waits: false };
}

/** The refusals of one wait for a pool, counted by answer in the order they first came. */
export class PoolAnswers {
  readonly #counts = new Map<string, number>();

  /** Counts one more `answer`. */
  add(answer: string): void {
    this.#counts.set(answer, (this.#counts.get(answer) ?? 0) + 1);
  }

  /** True before the first refusal. */
  get none(): boolean {
    return this.#counts.size === 0;
  }

  /** "HTTP 429 ×3, connection refused ×1". */
  toString(): string {
    return [...this.#counts].map(([answer, count]) => `${answer} ×${count}`).join(", ");
  }
}
