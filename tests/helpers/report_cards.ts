/**
 * Reading a `--report` file's contact sheet back in tests: each row's card and its thumbnail.
 *
 * @module
 */

/** The base64 JPEG of each card's thumbnail, by row; undefined for a card without one. */
export function thumbnails(html: string): (string | undefined)[] {
  return html.split('<li class="').slice(1).map((card) =>
    /<img src="data:image\/jpeg;base64,([^"]+)"/.exec(card)?.[1]
  );
}

/** Whether base64 `jpeg` starts as a JPEG does (its SOI marker). */
export function isJpeg(jpeg: string | undefined): boolean {
  return jpeg !== undefined && atob(jpeg.slice(0, 4)).startsWith("\xff\xd8");
}
