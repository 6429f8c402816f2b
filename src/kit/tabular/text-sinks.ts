/**
 * Writers for the text targets: CSV and TSV (RFC 4180 quoting), and JSON (an array of row objects
 * keyed by the header row). Each batch of rows becomes one string written to the file, and a full
 * write buffer is waited out ('drain'), so a fast source never piles text up in memory.
 */

import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { type Cell, cellText, jsonCell, trimRow } from './cells.js';
import type { RowSink } from './rows.js';

/** A UTF-8 file written with backpressure. Errors (a full disk) surface on the next call. */
export class TextFile {
  readonly #stream: WriteStream;
  #error: unknown;

  constructor(path: string) {
    // 'wx': the scratch name is fresh; never write through something already there.
    this.#stream = createWriteStream(path, { flags: 'wx', encoding: 'utf8' });
    // Without a listener an I/O error would be an uncaught exception; it is rethrown instead.
    this.#stream.on('error', (error: unknown) => {
      this.#error ??= error;
    });
  }

  async write(text: string): Promise<void> {
    if (this.#error) throw this.#error;
    if (text.length > 0 && !this.#stream.write(text)) await once(this.#stream, 'drain');
  }

  async end(text = ''): Promise<void> {
    if (this.#error) throw this.#error;
    this.#stream.end(text);
    await finished(this.#stream);
  }

  async abort(): Promise<void> {
    this.#stream.destroy();
    // Wait for the descriptor to close (or the pending open to finish), so removing the file
    // afterwards cannot race a late open that would create it again.
    await finished(this.#stream).catch(() => {});
  }
}

/** RFC 4180: CRLF between records, as Excel writes them. */
const EOL = '\r\n';

/**
 * CSV or TSV rows. A field holding the delimiter, a quote, CR or LF is quoted with quotes doubled;
 * TSV uses the same quoting (as Excel's tab-delimited export does), since plain TSV has no way to
 * carry a tab or a line break in a field. Rows shorter than the first non-empty row are padded
 * with empty fields, so the file is rectangular unless the data is wider somewhere.
 */
export function delimitedSink(path: string, delimiter: string, bom: boolean): RowSink {
  const file = new TextFile(path);
  const needsQuotes = new RegExp(`[${delimiter === '|' ? '\\|' : delimiter}"\\r\\n]`);
  const field = (cell: Cell) => {
    const text = cellText(cell);
    return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  let width = 0;
  let started = false;
  return {
    async write(rows) {
      let text = started || !bom ? '' : '\uFEFF';
      started = true;
      for (const row of rows) {
        if (width === 0) width = row.length;
        const fields = row.map(field);
        while (fields.length < width) fields.push('');
        text += fields.join(delimiter) + EOL;
      }
      await file.write(text);
    },
    end: () => file.end(started || !bom ? '' : '\uFEFF'),
    abort: () => file.abort(),
  };
}

/** Object keys from the header row: its texts, 'columnN' for a blank one, '_2', '_3' for repeats. */
class HeaderKeys {
  readonly keys: string[] = [];
  readonly #used = new Set<string>();
  /** The next suffix to try per repeated text, so a thousand equal cells cost a thousand steps. */
  readonly #next = new Map<string, number>();

  add(text: string): void {
    const base = text.length > 0 ? text : `column${this.keys.length + 1}`;
    let key = base;
    if (this.#used.has(key)) {
      let n = this.#next.get(base) ?? 2;
      while (this.#used.has(`${base}_${n}`)) n++;
      key = `${base}_${n}`;
      this.#next.set(base, n + 1);
    }
    this.#used.add(key);
    this.keys.push(key);
  }

  /** The key of column `index`, inventing 'columnN' keys for cells beyond the header. */
  at(index: number): string {
    while (this.keys.length <= index) this.add('');
    return this.keys[index]!;
  }
}

/**
 * JSON rows: `[` then one object per line `{"name":"alpha","value":1}` then `]`. The first
 * non-empty row is the header; every object has every header key (null for an empty cell), and
 * empty rows are left out, since an object of nulls carries nothing. Objects are assembled as
 * text, so a key like "__proto__" is just a key.
 */
export function jsonSink(path: string): RowSink {
  const file = new TextFile(path);
  let header: HeaderKeys | undefined;
  let count = 0;
  return {
    async write(rows) {
      let text = '';
      for (const full of rows) {
        const row = trimRow(full);
        if (row.length === 0) continue;
        if (!header) {
          header = new HeaderKeys();
          for (const cell of row) header.add(cellText(cell));
          continue;
        }
        const width = Math.max(row.length, header.keys.length);
        const members: string[] = [];
        for (let i = 0; i < width; i++) {
          members.push(`${JSON.stringify(header.at(i))}:${JSON.stringify(jsonCell(row[i] ?? null))}`);
        }
        text += `${count === 0 ? '[\n  ' : ',\n  '}{${members.join(',')}}`;
        count += 1;
      }
      await file.write(text);
    },
    end: () => file.end(count === 0 ? '[]\n' : '\n]\n'),
    abort: () => file.abort(),
  };
}
