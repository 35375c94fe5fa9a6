/**
 * Times the steps of a row, one after another (the diagnostics' row replays).
 *
 * @module
 */

/** Runs `steps` in order; returns each step's name with how long it took, in ms. */
export async function timedSteps(steps: [string, () => Promise<unknown>][]): Promise<[string, number][]> {
  const times: [string, number][] = [];
  for (const [name, step] of steps) {
    const start = performance.now();
    await step();
    times.push([name, performance.now() - start]);
  }
  return times;
}
