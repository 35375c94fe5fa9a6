/**
 * Test helper: what a JPEG screenshot (from `Tab.thumbnail`) shows, counted by the browser itself: the image
 * decoded in the tab's page, drawn on a canvas, its pixels read. No image library is needed.
 *
 * @module
 */

/** A rectangle of an image, in its pixels. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What an image shows inside a rectangle. */
export interface Pixels {
  /** The whole image's size. */
  width: number;
  height: number;
  /** How many pixels of the rectangle are near each named colour. */
  near: Record<string, number>;
  /** How many distinct grey levels (of 64): 1 for a plain box, many for a picture. */
  levels: number;
  /** How many pixels the rectangle holds. */
  pixels: number;
}

/**
 * Runs in the page (pass it to `Tab.evaluate`): decodes `jpeg` (base64) and counts, inside `rect` (the whole
 * image when null), the pixels near each of `colours` (`#rrggbb`) and the grey levels.
 */
export async function pixelsIn(
  jpeg: string,
  rect: Rect | null,
  colours: Record<string, string>,
): Promise<Pixels> {
  const image = new Image();
  image.src = `data:image/jpeg;base64,${jpeg}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  [canvas.width, canvas.height] = [image.width, image.height];
  const context = canvas.getContext("2d")!;
  context.drawImage(image, 0, 0);
  const area = rect ?? { x: 0, y: 0, width: image.width, height: image.height };
  const [x, y, w, h] = [area.x, area.y, area.width, area.height].map(Math.round) as [
    number,
    number,
    number,
    number,
  ];
  const { data } = context.getImageData(x, y, w, h);
  const targets = Object.entries(colours).map(([name, hex]) =>
    [name, [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))] as const
  );
  const near: Record<string, number> = Object.fromEntries(targets.map(([name]) => [name, 0]));
  const levels = new Set<number>();
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b] = [data[i]!, data[i + 1]!, data[i + 2]!];
    levels.add(Math.floor((r + g + b) / 12));
    for (const [name, [tr, tg, tb]] of targets) {
      if (Math.abs(r - tr!) + Math.abs(g - tg!) + Math.abs(b - tb!) < 30) near[name]!++;
    }
  }
  return { width: image.width, height: image.height, near, levels: levels.size, pixels: data.length / 4 };
}
