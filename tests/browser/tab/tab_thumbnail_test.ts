// Tab.thumbnail against the real Chromium of this machine: a small JPEG of what the viewport shows, taken of
// the page it was asked of even when a load follows at once, and the count of documents shown that tells a
// row whether it loaded a page. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { pixelsIn } from "../../helpers/jpeg_pixels.ts";

const COLOURS = { red: "#ff0000", blue: "#0000ff" };

/** A page filled with `colour`. */
const filled = (colour: string) =>
  `<!doctype html><style>html, body { margin: 0; height: 100%; background: ${colour}; }</style>`;

Deno.test("Tab.thumbnail against real Chromium: the viewport scaled down, the page it was asked of", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site } = fixture;
  site.html("/red", filled("#ff0000"));
  site.html("/blue", filled("#0000ff"));
  const shown = tab.documentsShown;

  await t.step("a JPEG 320 px wide in the viewport's shape, a few KB, of the page's colour", async () => {
    await tab.navigate(site.url("/red"), AMPLE_MS);
    const jpeg = await tab.thumbnail(320, 60, AMPLE_MS);
    const bytes = Uint8Array.from(atob(jpeg), (c) => c.charCodeAt(0));
    assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xd8]);
    assert.ok(bytes.length < 10_000, `${bytes.length} bytes`);
    const viewport = await tab.evaluate(
      () => [innerWidth, innerHeight],
      [],
      AMPLE_MS,
      "Reading the viewport",
    );
    const pixels = await tab.evaluate(pixelsIn, [jpeg, null, COLOURS], AMPLE_MS, "Counting pixels");
    assert.equal(pixels.width, 320);
    // Its shape is the viewport's (give or take the scroll bar and a pixel of rounding).
    const shape = viewport[1]! / viewport[0]!;
    assert.ok(Math.abs(pixels.height / 320 - shape) < 0.05, `${pixels.height} for ${viewport}`);
    assert.ok(pixels.near.red! > 0.9 * pixels.pixels, JSON.stringify(pixels));
  });

  await t.step("a load asked for at once waits for the shot: it shows the page it was asked of", async () => {
    // Three times each way: without the wait, the shot showed the next page (or hung) in one run of three.
    const pairs = [["/red", "/blue"], ["/blue", "/red"]] as const;
    for (const [from, to] of [...pairs, ...pairs, ...pairs]) {
      await tab.navigate(site.url(from), AMPLE_MS);
      const shot = tab.thumbnail(320, 60, AMPLE_MS);
      await tab.navigate(site.url(to), AMPLE_MS);
      const pixels = await tab.evaluate(pixelsIn, [await shot, null, COLOURS], AMPLE_MS, "Counting pixels");
      const [was, next] = from === "/red" ? ["red", "blue"] : ["blue", "red"];
      assert.ok(pixels.near[was]! > 0.9 * pixels.pixels && pixels.near[next] === 0, JSON.stringify(pixels));
    }
  });

  await t.step("documentsShown counts the documents loaded and the content set", async () => {
    // Thirteen loads above, then one content set.
    assert.equal(tab.documentsShown, shown + 13);
    await tab.setContent(filled("#00ff00"), AMPLE_MS);
    assert.equal(tab.documentsShown, shown + 14);
  });
});
