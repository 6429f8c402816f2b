/**
 * Reading text inputs and writing outputs for the document converters: inputs are capped before
 * they are read (a text conversion holds its input, or its PDF, in memory), decoded from the
 * encoding they are in (text-encoding.ts) without a byte-order mark; outputs are written to a scratch file in the job's temp dir and moved
 * into place only when complete, so the output path never holds a partial file.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { abortError, raceAbort, throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { ConvertContext } from '../../core/ports/index.js';
import { placeFile } from '../place-file.js';
import { decodeAll, sniffEncoding } from './text-encoding.js';

/** The input's size in bytes; INPUT_LIMIT_EXCEEDED above `maxBytes`. */
export async function checkInputSize(path: string, maxBytes: number): Promise<number> {
  const { size } = await stat(path);
  if (size > maxBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The input is ${size} bytes; this converter accepts at most ${maxBytes} bytes of text.`,
      { details: { size, maxInputBytes: maxBytes } },
    );
  }
  return size;
}

/** The whole input decoded from its encoding (invalid sequences become U+FFFD), size-checked first. */
export async function readTextInput(path: string, maxBytes: number): Promise<string> {
  await checkInputSize(path, maxBytes);
  const bytes = await readFile(path);
  return decodeAll(bytes, sniffEncoding(bytes.subarray(0, 64 * 1024)));
}

/**
 * Writes `data` (produced by `produce`, which may be slow) to a scratch file in ctx.tempDir and
 * moves it to ctx.outputPath. On failure or abort, neither the scratch file nor an output remains.
 */
export async function writeOutput(
  ctx: ConvertContext<unknown>,
  prefix: string,
  produce: () => Promise<string | Uint8Array>,
): Promise<void> {
  const scratch = join(ctx.tempDir, `${prefix}-${randomUUID()}.${ctx.to}`);
  const removeScratch = () => rm(scratch, { force: true });
  try {
    const data = await raceAbort(produce(), ctx.signal);
    await writeFile(scratch, data, { signal: ctx.signal });
    throwIfAborted(ctx.signal);
    await placeFile(scratch, ctx.outputPath);
  } catch (error) {
    await removeScratch();
    // writeFile rejects with a bare AbortError; callers expect CANCELED or CONVERSION_TIMEOUT.
    throw ctx.signal.aborted ? abortError(ctx.signal) : error;
  }
}
