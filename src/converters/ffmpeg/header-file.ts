/**
 * Bounded reads of a media file for the header readers (header-probe.ts): the file's first
 * bytes, read once, and further reads that never ask for more than MAX_READ bytes or past the
 * end. A hostile file can make a reader read at most a few MiB, whatever its headers claim.
 */
import type { FileHandle } from 'node:fs/promises';

/** What every reader gets first: enough for the headers of a well-made file. */
export const HEAD_BYTES = 256 * 1024;
/** The largest single further read (an MP4's moov at the end, an Ogg's last pages). */
export const MAX_READ = 8 * 1024 * 1024;

export interface HeaderFile {
  /** The file's size in bytes, as the converter has just read it. */
  size: number;
  /** The file's first min(size, HEAD_BYTES) bytes. */
  head: Buffer;
  /** `length` bytes from `position`; undefined when that is past the end or above MAX_READ. */
  read(position: number, length: number): Promise<Buffer | undefined>;
}

export async function openHeaderFile(file: FileHandle, size: number): Promise<HeaderFile> {
  const read = async (position: number, length: number): Promise<Buffer | undefined> => {
    if (!Number.isSafeInteger(position) || !Number.isSafeInteger(length)) return undefined;
    if (position < 0 || length < 0 || length > MAX_READ || position + length > size) return undefined;
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await file.read(bytes, 0, length, position);
    // The file shrank since its size was read: the caller falls back to ffprobe.
    return bytesRead === length ? bytes : undefined;
  };
  const head = (await read(0, Math.min(size, HEAD_BYTES))) ?? Buffer.alloc(0);
  return { size, head, read };
}
