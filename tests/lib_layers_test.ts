// The floors of lib/: every import runs from a higher floor to a lower one (or within one folder), never up
// and never sideways between folders of one floor, so that the browser layer knows nothing of the run and the
// run nothing of either job. docs/architecture.md draws the same floors.
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { ROOT } from "./helpers/job_process.ts";

/** Each folder of lib/ and its floor: 0 is the ground, the jobs' own domains are the top. */
const FLOORS: Readonly<Record<string, number>> = {
  "lib": 0,
  "lib/browser/cdp": 1,
  "lib/browser/chromium": 1,
  "lib/csv": 1,
  "lib/config": 1,
  "lib/provenance/timestamp": 1,
  "lib/job_server": 2,
  "lib/provenance": 2,
  "lib/report": 2,
  "lib/browser/in_page": 2,
  "lib/browser/pool": 2,
  "lib/browser/guard": 2,
  "lib/browser/ready": 3,
  "lib/run/watch": 3,
  "lib/browser/tab": 4,
  "lib/browser": 5,
  "lib/run/shell": 6,
  "lib/run/rows": 7,
  "lib/run/observers": 8,
  "lib/run": 9,
  "lib/verify": 9,
  "lib/shipment": 10,
  "lib/port": 10,
};

async function* sourceFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(ROOT, folder))) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** The repository paths `file` imports from lib/, statically or dynamically. */
async function libImports(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(join(ROOT, file));
  return [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)]
    .map((match) => relative(ROOT, join(ROOT, dirname(file), match[1]!)))
    .filter((path) => path.startsWith("lib/"));
}

Deno.test("lib/: every import runs down a floor or stays in its folder", async () => {
  const wrong: string[] = [];
  const folders = new Set<string>();
  for await (const file of sourceFiles("lib")) {
    const from = dirname(file);
    folders.add(from);
    for (const target of await libImports(file)) {
      const to = dirname(target);
      if (to === from) continue;
      if (!(FLOORS[to]! < FLOORS[from]!)) {
        wrong.push(`${file} (floor ${FLOORS[from]}) → ${target} (${FLOORS[to]})`);
      }
    }
  }
  assert.deepEqual(
    [...folders].filter((folder) => FLOORS[folder] === undefined),
    [],
    "folders without a floor",
  );
  assert.deepEqual(wrong, []);
});

Deno.test("lib/browser's face stays small: at most 6 modules at its root", async () => {
  const root: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, "lib/browser"))) {
    if (entry.isFile && entry.name.endsWith(".ts")) root.push(entry.name);
  }
  assert.ok(root.length <= 6, root.join(", "));
});
