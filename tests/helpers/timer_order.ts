/**
 * "How soon" told by an order that a slow host cannot change, for work that this process's own timers settle
 * (a deadline, a scaled pause) or that needs no timer at all. A loaded host delays every timer, but timers
 * still fire in the order they are due, and the promise reactions a timer starts all run before the next timer
 * fires: work settled by a timer due sooner than a reference timer settles before it, however late both fire.
 * (Work that waits for another process, a browser or a server, has no such order with a timer.)
 *
 * @module
 */

/** What {@linkcode settlesBefore} found: the work's value, and whether it came before the timer fired. */
export interface Settled<T> {
  value: T;
  before: boolean;
}

/**
 * Starts `work`, then a timer of `ms`; resolves, once `work` has, with its value and whether it settled before
 * the timer fired (rejects as `work` does). Work that a timer of its own settles, due less than `ms` after
 * `work` began, settles before it on any host.
 */
export async function settlesBefore<T>(ms: number, work: () => Promise<T>): Promise<Settled<T>> {
  const settling = work();
  let fired = false;
  const timer = setTimeout(() => fired = true, ms);
  try {
    return { value: await settling, before: !fired };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a timer of 0 ms, then `work`; resolves, once `work` has, with its value and whether it settled before
 * the timer fired: without waiting for any timer of its own (a deadline, a pause) or for a reply that never
 * comes.
 */
export async function settlesAtOnce<T>(work: () => Promise<T>): Promise<Settled<T>> {
  let fired = false;
  const timer = setTimeout(() => fired = true, 0);
  try {
    return { value: await work(), before: !fired };
  } finally {
    clearTimeout(timer);
  }
}
