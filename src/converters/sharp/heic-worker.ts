/**
 * Worker-thread entry for HEIC decoding (see heic.ts for the main-thread side). It decodes one
 * request at a time, as the main side sends them, and answers with the RGBA pixels (moved, not
 * copied) or the FileconvError's code, message and details, since an Error instance does not
 * survive the trip between threads as itself.
 *
 * Built as its own tsup entry (dist/adapters/converters/image/heic-worker.js); under vitest or tsx
 * heic.ts starts this TypeScript file through tsx.
 */
import { parentPort } from 'node:worker_threads';
import { toFileconvError } from '../../core/errors.js';
import { decodeHeicInThisThread } from './heic-wasm.js';

export interface HeicRequest {
  id: number;
  bytes: Uint8Array;
  maxPixels: number;
}

export type HeicResponse =
  | { id: number; ok: true; width: number; height: number; data: Uint8Array }
  | { id: number; ok: false; code: string; message: string; details?: Record<string, unknown> };

const port = parentPort;
if (!port) throw new Error('heic-worker.ts runs as a worker thread only');

port.on('message', async ({ id, bytes, maxPixels }: HeicRequest) => {
  let response: HeicResponse;
  const transfer: ArrayBuffer[] = [];
  try {
    const image = await decodeHeicInThisThread(bytes, maxPixels);
    // Move the pixels when they own their whole buffer (libheif fills a fresh array); else copy.
    const own = image.data.byteOffset === 0 && image.data.byteLength === image.data.buffer.byteLength;
    const data = own ? image.data : image.data.slice();
    transfer.push(data.buffer as ArrayBuffer);
    response = { id, ok: true, width: image.width, height: image.height, data };
  } catch (error) {
    const failure = toFileconvError(error, 'CORRUPT_INPUT', 'The HEIC/HEIF image could not be decoded');
    response = {
      id,
      ok: false,
      code: failure.code,
      message: failure.message,
      ...(failure.details ? { details: failure.details } : {}),
    };
  }
  port.postMessage(response, transfer);
});
