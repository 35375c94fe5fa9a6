/**
 * Reading a DevTools stream (`IO.read`), as `Page.printToPDF` hands a PDF back with `ReturnAsStream`: chunk by
 * chunk, so a large PDF never travels in one WebSocket message nor sits whole in memory
 * (docs/chromium_notes.md#printtopdf-stream-not-base64).
 *
 * @module
 */
import type { SessionSend } from "./connection.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** Chunk size for reading a stream back. */
const CHUNK_BYTES = 1 << 20;

/**
 * Hands the stream `handle`'s bytes to `write` chunk by chunk until its end, each read within `timeoutMs`;
 * closes the stream on every path.
 */
export async function readStream(
  send: SessionSend,
  handle: string,
  { timeoutMs, write }: { timeoutMs: number; write: (chunk: Uint8Array) => Promise<void> },
): Promise<void> {
  try {
    for (;;) {
      const piece = await send("IO.read", { handle, size: CHUNK_BYTES }, timeoutMs);
      if (piece.data) {
        await write(
          piece.base64Encoded ? Uint8Array.fromBase64(piece.data) : new TextEncoder().encode(piece.data),
        );
      }
      if (piece.eof) break;
    }
  } finally {
    await send("IO.close", { handle }, SMALL_CALL_MS).catch(() => {});
  }
}
