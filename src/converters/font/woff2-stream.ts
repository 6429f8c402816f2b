/**
 * WOFF2's one Brotli stream, inflated once here before fontTools sees the file, counting bytes
 * and stopping at what the table directory declares. python3-brotli has no bounded decoder: a
 * stream that inflates to gigabytes would be held whole (and under the memory cap, Brotli's C++
 * aborts the process rather than raising). Node's decoder streams, so this pass holds one chunk
 * at a time and costs milliseconds for a real font.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { abortError } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';

const HEADER_BYTES = 48;
/** Largest directory entry: flags, an explicit tag, two UIntBase128 lengths of 5 bytes each. */
const MAX_ENTRY_BYTES = 15;
const GLYF = 10;
const LOCA = 11;
const HMTX = 3;

interface Woff2Layout {
  /** Where the Brotli stream starts. */
  streamOffset: number;
  streamLength: number;
  /** Bytes the stream must inflate to: every table's (transformed) length. */
  inflatedLength: number;
}

function corrupt(message: string): FileconvError {
  return new FileconvError('CORRUPT_INPUT', `Cannot read this woff2 font: ${message}`);
}

/** The stream's place and declared inflated size, from the header and table directory. */
export function woff2Layout(head: Buffer, fileSize: number): Woff2Layout | undefined {
  if (head.length < HEADER_BYTES || head.toString('latin1', 0, 4) !== 'wOF2') return undefined;
  // A collection's directory follows the tables'; fontTools refuses those anyway.
  if (head.toString('latin1', 4, 8) === 'ttcf') return undefined;
  const tables = head.readUInt16BE(12);
  const streamLength = head.readUInt32BE(20);
  let at = HEADER_BYTES;
  const base128 = (): number => {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const byte = head[at++];
      if (byte === undefined) throw corrupt('the table directory runs past the end of the file');
      if (i === 0 && byte === 0x80) throw corrupt('a table length has leading zeros');
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    throw corrupt('a table length is longer than 5 bytes');
  };
  let inflatedLength = 0;
  for (let index = 0; index < tables; index++) {
    const flags = head[at++];
    if (flags === undefined) throw corrupt('the table directory runs past the end of the file');
    const tag = flags & 0x3f;
    if (tag === 63) at += 4;
    const origLength = base128();
    const version = flags >> 6;
    // glyf and loca are transformed unless version 3 says not; hmtx only with version 1.
    const transformed = tag === GLYF || tag === LOCA ? version === 0 : version !== 0 && tag === HMTX;
    inflatedLength += transformed ? base128() : origLength;
  }
  if (at + streamLength > fileSize)
    throw corrupt('the file is truncated: its compressed tables run past its end');
  return { streamOffset: at, streamLength, inflatedLength };
}

/**
 * Refuses a WOFF2 file whose tables declare more than `maxBytes` (INPUT_LIMIT_EXCEEDED) or whose
 * stream inflates past what they declare (CORRUPT_INPUT). Files that are not WOFF2 pass untouched.
 */
export async function checkWoff2Stream(path: string, maxBytes: number, signal: AbortSignal): Promise<void> {
  const file = await open(path, 'r');
  let head: Buffer;
  let size: number;
  try {
    size = (await file.stat()).size;
    const tablesGuess = 65_535 * MAX_ENTRY_BYTES + HEADER_BYTES;
    const { buffer, bytesRead } = await file.read(
      Buffer.alloc(Math.min(size, tablesGuess)),
      0,
      Math.min(size, tablesGuess),
      0,
    );
    head = buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  const layout = woff2Layout(head, size);
  if (!layout) return;
  if (layout.inflatedLength > maxBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `This woff2 font's tables declare ${layout.inflatedLength} bytes unpacked; the limit is ${maxBytes}.`,
    );
  }
  if (layout.streamLength === 0) return;
  let inflated = 0;
  const overflow = corrupt(`its compressed tables inflate past the ${layout.inflatedLength} bytes declared`);
  try {
    await pipeline(
      createReadStream(path, {
        start: layout.streamOffset,
        end: layout.streamOffset + layout.streamLength - 1,
      }),
      createBrotliDecompress(),
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) {
          inflated += chunk.length;
          if (inflated > layout.inflatedLength) throw overflow;
        }
      },
      { signal },
    );
  } catch (error) {
    // The pipeline may report its own teardown (an AbortError) rather than what the sink threw.
    if (inflated > layout.inflatedLength) throw overflow;
    if (error instanceof FileconvError) throw error;
    if (signal.aborted) throw abortError(signal);
    throw corrupt(`its compressed tables cannot be inflated (${(error as Error).message})`);
  }
}
