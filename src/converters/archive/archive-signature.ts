/**
 * Proves an input is the archive format it is said to be before bsdtar reads it. bsdtar takes
 * every format libarchive knows, whatever the name says, and one of them is a hazard: an mtree
 * spec (a text list of paths) makes libarchive read the files it names from this machine's disk,
 * so an xz-compressed spec naming /etc/passwd, uploaded as .tar.xz, would come back with the
 * file inside. So the outer bytes must be the declared format's signature, and a compressed tar
 * must hold a tar header once decompressed (bsdcat decompresses without parsing any format).
 */
import { open } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { assertNotEmpty } from '../../core/file-size.js';
import { stderrTail } from '../../kit/command-tools.js';
import type { ArchiveRead } from './archive-edges.js';
import { runArchiveTool } from './archive-process.js';
import { isTarHeader } from './tar-header-reader.js';

const SIGNATURES: Readonly<Record<Exclude<ArchiveRead, 'tar'>, readonly (readonly number[])[]>> = {
  // A local file header, or the end-of-central-directory record of an empty zip.
  zip: [
    [0x50, 0x4b, 0x03, 0x04],
    [0x50, 0x4b, 0x05, 0x06],
  ],
  tgz: [[0x1f, 0x8b]],
  tbz2: [[0x42, 0x5a, 0x68]],
  txz: [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  '7z': [[0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  rar: [[0x52, 0x61, 0x72, 0x21, 0x1a, 0x07]],
};
const COMPRESSED_TARS = new Set<ArchiveRead>(['tgz', 'tbz2', 'txz']);
const BLOCK = 512;

async function readHead(path: string, bytes: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The first tar block of a compressed stream, from bsdcat (stopped as soon as it has it). */
async function decompressedHead(path: string, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let have = 0;
  const outcome = await runArchiveTool('bsdcat', ['--', path], {
    signal,
    names: { [path]: 'the input' },
    onStdout: (chunk) => {
      chunks.push(chunk);
      have += chunk.length;
      return have < BLOCK;
    },
  });
  if (have < BLOCK && outcome.code !== 0) {
    throw new FileconvError(
      'CORRUPT_INPUT',
      `The archive cannot be decompressed: ${stderrTail(outcome.stderr)}`,
      {
        details: { reason: 'archive', stderr: stderrTail(outcome.stderr) },
      },
    );
  }
  return Buffer.concat(chunks).subarray(0, BLOCK);
}

function mismatch(from: ArchiveRead, what: string): FileconvError {
  return new FileconvError('CONTENT_MISMATCH', `The file is said to be ${from}, but ${what}.`, {
    details: { declared: from, reason: 'archive-signature' },
  });
}

/** CONTENT_MISMATCH unless the file at `path` is a `from` archive by its bytes. */
export async function assertArchiveContent(
  path: string,
  from: ArchiveRead,
  signal: AbortSignal,
): Promise<void> {
  const head = await readHead(path, BLOCK);
  assertNotEmpty(head.length);
  if (from === 'tar') {
    if (!isTarHeader(head)) throw mismatch(from, 'it does not start with a tar header');
    return;
  }
  const signatures = SIGNATURES[from];
  if (!signatures.some((signature) => signature.every((byte, i) => head[i] === byte))) {
    throw mismatch(from, `it does not start with the ${from} signature`);
  }
  if (COMPRESSED_TARS.has(from) && !isTarHeader(await decompressedHead(path, signal))) {
    throw mismatch(from, 'what it decompresses to is not a tar archive');
  }
}
