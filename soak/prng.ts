/**
 * The soak's seeded random numbers: the same seed draws the same rows and options on every machine, so a
 * failing seed replays exactly with `--seed`.
 *
 * @module
 */

/** A small deterministic generator (mulberry32): fast, 32-bit state, plenty for drawing test cases. */
export class Prng {
  #state: number;

  constructor(seed: number) {
    // Mixed once so that neighbouring seeds (1, 2, 3…) start far apart.
    this.#state = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** One of `items`, each as likely as its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    const total = items.reduce((sum, [, weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [item, weight] of items) {
      at -= weight;
      if (at < 0) return item;
    }
    return items[items.length - 1]![0];
  }
}
