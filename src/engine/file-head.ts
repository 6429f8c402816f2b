/**
 * The first bytes of an input, which content detection reads (DETECTION_BYTES of them): of a
 * local file (the direct API) or of a stored upload (jobs).
 */
import { open } from 'node:fs/promises';
import { DETECTION_BYTES } from '../core/formats/index.js';
import type { Storage } from '../core/ports/index.js';

/** Reads the first DETECTION_BYTES bytes of a local file (fewer if it is shorter). */
export async function readFileHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(DETECTION_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, DETECTION_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Reads the first DETECTION_BYTES bytes of a stored object. */
export async function readStoredHead(storage: Storage, key: string, size: number): Promise<Uint8Array> {
  if (size === 0) return new Uint8Array(0);
  const stream = await storage.get(key, { start: 0, end: Math.min(size, DETECTION_BYTES) - 1 });
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).subarray(0, DETECTION_BYTES);
}
