import assert from "node:assert/strict";
import { pickSlot, type SlotLoad } from "../../lib/browser/fleet.ts";

const slot = (rows: number, working = true, tabs = 2): SlotLoad => ({ rows, tabs, working });

Deno.test("pickSlot: the working browser with the fewest rows in progress and a free tab", async (t) => {
  await t.step("the fewest rows, then the lowest number", () => {
    assert.equal(pickSlot([slot(1), slot(0), slot(0)]), 1);
    assert.equal(pickSlot([slot(1), slot(1), slot(1)]), 0);
    assert.equal(pickSlot([slot(0)]), 0);
  });

  await t.step("a working browser before one being started or replaced, while it has a free tab", () => {
    assert.equal(pickSlot([slot(0, false), slot(1)]), 1);
    assert.equal(pickSlot([slot(0, false), slot(2)]), 0, "the only free tab is in the one being replaced");
    assert.equal(
      pickSlot([slot(1, false), slot(0, false)]),
      1,
      "among those waited for, the fewest rows too",
    );
  });

  await t.step("no free tab anywhere: none", () => {
    assert.equal(pickSlot([slot(2), slot(2, false)]), undefined);
    assert.equal(pickSlot([]), undefined);
  });
});
