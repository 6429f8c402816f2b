/**
 * A zip archive written as it is filled: each entry goes straight to the file through yazl, and
 * adding waits while the file lags behind, so memory holds about one page image however many
 * pages the archive gets. Entries are stored, not deflated: PNG and JPEG are compressed already.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { loadYazl } from '../../kit/libraries/pdf.js';

export interface StreamingZip {
  /** Appends an entry; resolves once the archive's buffer is back under its high-water mark. */
  add(name: string, data: Buffer): Promise<void>;
  /** Writes the central directory and resolves when the file is complete and closed. */
  finish(): Promise<void>;
  /** Stops writing and closes the file (left partial: the caller removes it). */
  abort(): Promise<void>;
}

export async function createStreamingZip(path: string): Promise<StreamingZip> {
  const { ZipFile } = await loadYazl();
  const zip = new ZipFile();
  const file = createWriteStream(path);
  const written = pipeline(zip.outputStream, file);
  // Observed by add/finish/abort; without this an early failure would be an unhandled rejection.
  written.catch(() => {});
  const archive = zip.outputStream;

  return {
    async add(name, data) {
      // yazl writes a buffer entry into its output stream at once, ignoring backpressure; waiting
      // for 'drain' here is what keeps a fast renderer from piling pages up in memory.
      zip.addBuffer(data, name, { compress: false });
      if (archive instanceof Writable && archive.writableNeedDrain) {
        await Promise.race([once(archive, 'drain'), written]);
      }
    },
    async finish() {
      zip.end();
      await written;
    },
    async abort() {
      file.destroy();
      await written.catch(() => {});
    },
  };
}

/** Entry names page-001.png, page-002.png, ...: zero-padded so they sort in page order. */
export function pageEntryName(pageNumber: number, pageCount: number, extension: string): string {
  const digits = Math.max(3, String(pageCount).length);
  return `page-${String(pageNumber).padStart(digits, '0')}.${extension}`;
}
