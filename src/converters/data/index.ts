/**
 * The data converter, all in JavaScript: JSON, JSON Lines, YAML, TOML and XML into each other (yaml,
 * smol-toml, fast-xml-parser),
 * and iCalendar events and vCard contacts to CSV or JSON tables (data/calendar-cards.ts, no package). Inputs
 * are read whole, so their size is bounded (`maxInputBytes`); YAML alias bombs and XML entity
 * declarations (expansion bombs, external entities) are refused as UNSAFE_INPUT, deep nesting as
 * INPUT_LIMIT_EXCEEDED (data/tree-formats.ts). In a service it runs isolated like the other
 * pure-JS converters (isolation/isolated.ts: heap cap and work budget). The output appears at
 * `outputPath` only when complete.
 */
import { randomUUID } from 'node:crypto';
import { placeFile } from '../../kit/place-file.js';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FileconvError, toFileconvError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import { edgeGuard, runInProcess } from '../../kit/converter-kit.js';
import { readContacts, readEvents } from './calendar-cards.js';
import { DATA_EDGES } from './data-edges.js';
import { DATA } from './registration.js';
import { parseTree, type TreeFormat, writeTree } from './tree-formats.js';
import type { Row } from '../../kit/tabular/cells.js';
import { delimitedSink } from '../../kit/tabular/text-sinks.js';
import { byteOrderMark, xmlDeclaredEncoding } from '../../kit/text/text-encoding.js';

export { DATA_FACTORY, DATA_REGISTRATION } from './registration.js';

export { DATA_EDGES } from './data-edges.js';

export interface DataConverterOptions {
  /**
   * Largest input in bytes; inputs are parsed whole. Default 10 MiB: measured here (a loaded 2-core
   * machine) YAML parses at ~0.15 MB/s and XML at ~0.5 MB/s, so 10 MiB stays within the isolation
   * budget (120 s).
   */
  maxInputBytes?: number;
  /** Deepest nesting of objects and arrays (or XML elements). Default 100. */
  maxDepth?: number;
  /** How far YAML aliases may expand (yaml's maxAliasCount). Default 100. */
  maxAliasCount?: number;
}

export const DATA_DEFAULTS = { maxInputBytes: 10 * 1024 * 1024, maxDepth: 100, maxAliasCount: 100 } as const;

const factoryOptionsSchema = z.strictObject({
  maxInputBytes: z.int().min(1).optional(),
  maxDepth: z.int().min(1).max(10_000).optional(),
  maxAliasCount: z.int().min(0).optional(),
});

type Settings = Required<DataConverterOptions>;

/**
 * The input as text. JSON, YAML, TOML, iCalendar and vCard are UTF-8 (their specifications say
 * so; a byte-order mark is dropped). XML names its own encoding: a UTF-16 byte-order mark, or the
 * declaration's `encoding` (found by the real-files survey: an RSS feed in IBM866 was refused as
 * "not UTF-8 text"); a file that is not what it declares is CORRUPT_INPUT.
 */
async function readInput(path: string, maxBytes: number, format: string): Promise<string> {
  const { size } = await stat(path);
  if (size > maxBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `Data input is limited to ${maxBytes} bytes (it is read whole); this file has ${size}`,
      { details: { maxInputBytes: maxBytes, size } },
    );
  }
  const bytes = await readFile(path);
  const mark = format === 'xml' ? byteOrderMark(bytes)?.encoding : undefined;
  const utf16 = mark?.startsWith('utf-16') ? mark : undefined;
  if (!utf16 && bytes.subarray(0, 4096).includes(0)) {
    throw new FileconvError('CORRUPT_INPUT', 'The file is not text (it holds NUL bytes)');
  }
  const encoding = utf16 ?? (format === 'xml' ? xmlDeclaredEncoding(bytes) : undefined) ?? 'utf-8';
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new FileconvError(
      'CORRUPT_INPUT',
      `The file is not ${encoding === 'utf-8' ? 'UTF-8' : encoding} text`,
      {
        details: { encoding },
      },
    );
  }
}

/** Records (ics events, vcf contacts) as the output's text, or written as CSV into `path`. */
async function writeRecords(
  records: readonly Record<string, string | string[]>[],
  to: string,
  path: string,
): Promise<void> {
  if (records.length === 0) throw new FileconvError('CORRUPT_INPUT', 'The file holds no events or contacts');
  if (to === 'json') {
    await writeFile(path, `${JSON.stringify(records, null, 2)}\n`);
    return;
  }
  const header = Object.keys(records[0] ?? {});
  const rows: Row[] = [
    header,
    ...records.map((record) =>
      header.map((key) => {
        const value = record[key];
        return Array.isArray(value) ? value.join('; ') : (value ?? '');
      }),
    ),
  ];
  const sink = delimitedSink(path, ',', false);
  try {
    await sink.write(rows);
    await sink.end();
  } catch (error) {
    await sink.abort();
    throw error;
  }
}

async function run(ctx: ConvertContext, settings: Settings): Promise<void> {
  const text = await readInput(ctx.inputPath, settings.maxInputBytes, ctx.from);
  const scratch = join(ctx.tempDir, `data-${randomUUID()}.${ctx.to}`);
  try {
    if (ctx.from === 'ics' || ctx.from === 'vcf') {
      const records = ctx.from === 'ics' ? readEvents(text) : readContacts(text);
      await writeRecords(records as unknown as Record<string, string | string[]>[], ctx.to, scratch);
    } else {
      const tree = await parseTree(text, ctx.from as TreeFormat, settings);
      ctx.onProgress(0.5);
      await writeFile(scratch, await writeTree(tree, ctx.to as TreeFormat));
    }
    await placeFile(scratch, ctx.outputPath);
  } finally {
    await rm(scratch, { force: true });
  }
}

/** Creates the data converter. A bad factory option throws INVALID_OPTIONS. */
export function createDataConverter(options: DataConverterOptions = {}): Converter {
  const checked = parseOptions(factoryOptionsSchema, options, 'createDataConverter');
  const settings: Settings = { ...DATA_DEFAULTS, ...checked };
  const guard = edgeGuard('data', DATA_EDGES);
  return {
    ...DATA,
    // Plain JavaScript of its own: each edge names the parser packages it loads (data-edges.ts),
    // and the engine plans only the edges whose packages are installed.
    async available(): Promise<Availability> {
      return { ok: true };
    },
    async convert(ctx: ConvertContext): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      return runInProcess(
        ctx,
        () => run(ctx, settings),
        (error) => toFileconvError(error, 'CONVERSION_FAILED'),
      );
    },
  };
}
