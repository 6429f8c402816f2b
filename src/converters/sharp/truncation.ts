/**
 * Whether an image file stops before its format's end marker: a JPEG without EOI (FF D9), a PNG
 * without IEND, a GIF without its trailer (3B). A plain look at the file's last bytes, for when
 * libvips' own report cannot be trusted: with conversions running in parallel it sometimes
 * loses a decode error and reports the write it was feeding instead (or "Unknown error").
 */
import { open } from 'node:fs/promises';

const TAIL_BYTES = 64;

const END_MARKERS: Record<string, (tail: Buffer) => boolean> = {
  // Encoders may pad after EOI; the marker need only be near the end.
  jpg: (tail) => tail.includes(Buffer.from([0xff, 0xd9])),
  jpeg: (tail) => tail.includes(Buffer.from([0xff, 0xd9])),
  png: (tail) => tail.includes(Buffer.from('IEND')),
  // The trailer is the last byte (some writers pad with zeros after it), after a block terminator.
  gif: (tail) => {
    let end = tail.length - 1;
    while (end > 0 && tail[end] === 0x00) end--;
    return tail[end] === 0x3b && tail[end - 1] === 0x00;
  },
};

/** True when `path` (of format `format`) lacks its end marker; false when it has it or the format has none we know. */
export async function isTruncatedImage(path: string, format: string): Promise<boolean> {
  const hasEnd = END_MARKERS[format];
  if (!hasEnd) return false;
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_BYTES);
    const tail = Buffer.alloc(length);
    await handle.read(tail, 0, length, size - length);
    return !hasEnd(tail);
  } finally {
    await handle.close();
  }
}
