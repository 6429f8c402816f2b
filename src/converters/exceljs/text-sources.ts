/**
 * Readers for the text sources. CSV and TSV stream through csv-parse (a UTF-8 or UTF-16 byte order
 * mark is dropped, \r\n, \n and \r end records even when mixed in one file, quoted fields may hold
 * delimiters, quotes and line breaks, rows may differ in length). JSON is parsed whole, so its size
 * is bounded (maxJsonBytes): a streaming JSON parser would be one more dependency for a format
 * whose files are rarely large.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import type { CsvParse } from '../../kit/libraries/sheets.js';
import { type Cell, cellFromField, type Row, trimRow } from '../../kit/tabular/cells.js';
import type { RowSource } from '../../kit/tabular/rows.js';

/** Rows handed over at once: enough to make the per-batch cost vanish, small enough to stay flat. */
const BATCH_ROWS = 500;
/** The longest CSV record (all its fields) csv-parse may buffer: a guard against a missing newline. */
export const MAX_RECORD_CHARS = 8 * 1024 * 1024;

function csvError(error: unknown, format: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('CSV_')) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'CSV_MAX_RECORD_SIZE') {
    return new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `A ${format.toUpperCase()} record is longer than ${MAX_RECORD_CHARS} characters`,
      { cause: error, details: { maxRecordChars: MAX_RECORD_CHARS } },
    );
  }
  return new FileconvError('CORRUPT_INPUT', `The ${format.toUpperCase()} could not be read: ${message}`, {
    cause: error,
    details: { reason: code },
  });
}

/** CSV (`delimiter` ',') or TSV ('\t'): fields become cells by the rule of cellFromField. */
export async function delimitedSource(
  parse: CsvParse,
  path: string,
  delimiter: ',' | '\t',
): Promise<RowSource> {
  const { size } = await stat(path);
  const input = createReadStream(path);
  const parser = parse({
    bom: true,
    delimiter,
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    // A quote inside an unquoted field (5" tall) is text, as spreadsheet programs read it.
    relax_quotes: true,
    max_record_size: MAX_RECORD_CHARS,
  });
  input.on('error', (error) => parser.destroy(error));
  // A small file can be parsed (and fail) before anything iterates the parser; without a
  // listener its error would be uncaught. Iteration still sees it: the stream is left errored.
  parser.on('error', () => {});
  input.pipe(parser);
  const format = delimiter === ',' ? 'csv' : 'tsv';

  async function* batches(): AsyncGenerator<Row[]> {
    let batch: Row[] = [];
    try {
      for await (const record of parser as AsyncIterable<string[]>) {
        batch.push(trimRow(record.map(cellFromField)));
        if (batch.length >= BATCH_ROWS) {
          yield batch;
          batch = [];
        }
      }
    } catch (error) {
      throw csvError(error, format);
    }
    if (batch.length > 0) yield batch;
  }

  return {
    batches: batches(),
    progress: () => (size > 0 ? input.bytesRead / size : 1),
    title: () => undefined,
    dispose() {
      input.destroy();
      parser.destroy();
    },
  };
}

function jsonCellFrom(value: unknown): Cell {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  ) {
    return value;
  }
  // Nested arrays and objects have no cell type: they are kept as their JSON text.
  return JSON.stringify(value) ?? null;
}

function notRows(message: string, details?: Record<string, unknown>): FileconvError {
  return new FileconvError('CORRUPT_INPUT', `The JSON is not an array of row objects: ${message}`, {
    ...(details ? { details } : {}),
  });
}

/**
 * JSON: an array of objects. The header is every key in order of first appearance, so objects
 * may differ in their keys; a missing key is an empty cell. Values keep their type (a string of
 * digits stays text). Files over `maxBytes` are refused before reading (INPUT_LIMIT_EXCEEDED).
 */
export async function jsonSource(path: string, maxBytes: number): Promise<RowSource> {
  const { size } = await stat(path);
  if (size > maxBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `JSON input is limited to ${maxBytes} bytes (it is read whole); this file has ${size}`,
      { details: { maxJsonBytes: maxBytes, size } },
    );
  }
  const text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new FileconvError('CORRUPT_INPUT', `The JSON could not be parsed: ${message}`, { cause: error });
  }
  if (!Array.isArray(data)) throw notRows(`its top level is ${data === null ? 'null' : typeof data}`);
  const keys = new Set<string>();
  const objects: Record<string, unknown>[] = [];
  for (const [index, item] of data.entries()) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      const kind = Array.isArray(item) ? 'an array' : item === null ? 'null' : `a ${typeof item}`;
      throw notRows(`item ${index} is ${kind}`, { index });
    }
    const object = item as Record<string, unknown>;
    for (const key of Object.keys(object)) keys.add(key);
    objects.push(object);
  }
  const header = [...keys];
  let done = 0;

  async function* batches(): AsyncGenerator<Row[]> {
    if (objects.length === 0) return;
    yield [header];
    for (let start = 0; start < objects.length; start += BATCH_ROWS) {
      const slice = objects.slice(start, start + BATCH_ROWS);
      yield slice.map((object) =>
        trimRow(header.map((key) => (Object.hasOwn(object, key) ? jsonCellFrom(object[key]) : null))),
      );
      done = start + slice.length;
    }
  }

  return {
    batches: batches(),
    progress: () => (objects.length > 0 ? done / objects.length : 1),
    title: () => undefined,
    dispose() {},
  };
}
