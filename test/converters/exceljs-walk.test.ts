/**
 * exceljs's streaming walk can end early: its unzipper emits 'end' once the input file has been
 * read, sometimes before the entries still in its buffer are handed over (exceljs#3064; measured:
 * about 1 read in 3,000 under load). Lost relations made a good workbook CORRUPT_INPUT ("no
 * worksheets"); lost shared strings gave a CSV whose text cells were empty. The race is timing,
 * so these tests make the walk miss a part on purpose: exceljs is handed a copy of the fixture
 * without that part (a walk that ends cleanly without it, as the race does), while the central
 * directory read from the whole file lists it.
 */
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { assertWorkbookParts } from '../../src/converters/exceljs/workbook-parts.js';
import { xlsxSource } from '../../src/converters/exceljs/xlsx-source.js';
import type { FileconvError } from '../../src/core/errors.js';
import { fixture } from './converter-harness.js';

const PATH = fixture('fixture.xlsx');

/** The fixture's entries in their order, without `part`. */
async function fixtureWithout(part: string): Promise<Buffer> {
  const zip = await yauzl.openPromise(PATH, { lazyEntries: true });
  const out = new yazl.ZipFile();
  let dropped = false;
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName === part) {
      dropped = true;
      continue;
    }
    out.addBuffer(await buffer(await zip.openReadStreamPromise(entry)), entry.fileName);
  }
  zip.close();
  expect(dropped).toBe(true);
  out.end();
  return buffer(out.outputStream);
}

/** exceljs whose first `cutReads` readers get `cut` instead of the file they were given. */
function exceljsEndingEarly(cut: Buffer, cutReads: number): { module: typeof ExcelJS; reads: () => number } {
  let reads = 0;
  const Base = ExcelJS.stream.xlsx.WorkbookReader;
  class EndingEarly extends Base {
    constructor(
      input: ConstructorParameters<typeof Base>[0],
      options: ConstructorParameters<typeof Base>[1],
    ) {
      reads += 1;
      if (reads <= cutReads) {
        (input as Readable).destroy();
        super(Readable.from([cut]), options);
      } else super(input, options);
    }
  }
  const module = {
    ...ExcelJS,
    stream: { ...ExcelJS.stream, xlsx: { ...ExcelJS.stream.xlsx, WorkbookReader: EndingEarly } },
  };
  return { module: module as typeof ExcelJS, reads: () => reads };
}

async function rowsOf(module: typeof ExcelJS): Promise<unknown[][]> {
  const source = await xlsxSource(module, PATH, undefined, await assertWorkbookParts(PATH, 1e9));
  const rows: unknown[][] = [];
  try {
    for (let step = await source.batches.next(); !step.done; step = await source.batches.next()) {
      rows.push(...step.value);
    }
  } finally {
    source.dispose();
  }
  return rows;
}

describe('a walk that ends early', () => {
  it('is read again: lost relations (once) and lost shared strings (twice) still give every row and its text', async () => {
    const expected = await rowsOf(ExcelJS);
    expect(expected.flat()).toContain('café');
    for (const [part, cutReads] of [
      ['xl/_rels/workbook.xml.rels', 1],
      ['xl/sharedStrings.xml', 2],
    ] as const) {
      const early = exceljsEndingEarly(await fixtureWithout(part), cutReads);
      expect(await rowsOf(early.module)).toEqual(expected);
      expect(early.reads()).toBe(cutReads + 1);
    }
  });

  it('fails as the service after three tries, never as a damaged file or with empty text', async () => {
    const early = exceljsEndingEarly(await fixtureWithout('xl/sharedStrings.xml'), 3);
    const error = (await rowsOf(early.module).then(
      () => undefined,
      (caught: unknown) => caught,
    )) as FileconvError;
    expect(error.code).toBe('CONVERSION_FAILED');
    expect(error.message).toMatch(/could not be read whole in 3 tries: .*xl\/sharedStrings\.xml/);
    expect(early.reads()).toBe(3);
  });
});
