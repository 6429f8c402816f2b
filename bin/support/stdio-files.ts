/**
 * `-` on the command line: stdin spooled to a file for the engine (which reads files, and detects
 * the format from their content), a result file streamed to stdout.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { UsageError } from './usage-error.js';

/** Writes all of stdin to `path`; a terminal as stdin is refused (it would wait for typing). */
export async function spoolStdin(path: string): Promise<void> {
  if (process.stdin.isTTY) {
    throw new UsageError('The input - reads stdin, which is a terminal here: pipe a file into it.');
  }
  await pipeline(process.stdin, createWriteStream(path));
}

/** Streams the file at `path` to stdout; a reader that closed early (| head) ends it quietly. */
export async function streamToStdout(path: string): Promise<void> {
  try {
    await pipeline(createReadStream(path), process.stdout, { end: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
  }
}
