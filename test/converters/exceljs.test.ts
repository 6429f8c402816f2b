/**
 * The exceljs spreadsheet converter on real files: every edge on the fixtures with exact values,
 * sheet selection, cell kinds (formulas, dates, rich text, hyperlinks, errors), round trips that
 * check cell types, CSV quirks and the options. Hostile inputs are in exceljs-failures.test.ts,
 * long sheets, memory and aborts in exceljs-streaming.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { createSpreadsheetConverter } from '../../src/converters/exceljs/index.js';
import type { ConvertContext } from '../../src/core/ports/index.js';
import {
  type ContextOverrides,
  context,
  expectCode,
  expectHtmlDocument,
  expectNoLeftovers,
  fixture,
  type Workspace,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const converter = withOptionsParsed(createSpreadsheetConverter());

/** Converts and returns the output's text. */
async function convertText(ws: Workspace, from: string, to: string, overrides: ContextOverrides = {}) {
  const ctx: ConvertContext = context(ws, from, to, overrides);
  await converter.convert(ctx);
  return readFile(ctx.outputPath, 'utf8');
}

/** Every cell of every row of the first sheet, read back with exceljs (not streaming). */
async function readCells(path: string): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  const rows: unknown[][] = [];
  workbook.worksheets[0]!.eachRow((row) => {
    rows.push((row.values as unknown[]).slice(1));
  });
  return rows;
}

const DATA_CSV =
  'name,value,note\r\nalpha,1,"comma, inside"\r\nbeta,2.5,"line with ""quotes"""\r\ngamma,-3,café\r\n';

describe('edges and options', () => {
  it('declares xlsx to csv/tsv/json/html as lossy and text to xlsx as lossless', () => {
    const edge = (from: string, to: string) => converter.edges.find((e) => e.from === from && e.to === to);
    for (const to of ['csv', 'tsv', 'json', 'html']) expect(edge('xlsx', to)?.lossy).toBe(true);
    for (const from of ['csv', 'tsv', 'json']) expect(edge(from, 'xlsx')?.lossy).toBe(false);
    expect(edge('csv', 'tsv')?.lossy).toBe(false);
    expect(edge('json', 'csv')?.lossy).toBe(true);
    for (const e of converter.edges) expect(e.cost).toBeGreaterThanOrEqual(1);
    expect(edge('csv', 'html')).toBeUndefined();
  });

  it('is available and rejects unknown factory options', async () => {
    expect(await converter.available()).toMatchObject({
      ok: true,
      version: expect.stringMatching(/^exceljs 4\./),
    });
    expect(() => createSpreadsheetConverter({ nope: 1 } as never)).toThrow(/nope/);
    expect(() => createSpreadsheetConverter({ maxJsonBytes: -1 })).toThrow(/maxJsonBytes/);
  });

  it('has strict option schemas per target', () => {
    const schema = (to: string) => converter.optionsSchema!(to);
    expect(schema('csv').safeParse({ sheet: 'Data', delimiter: ';', bom: true }).success).toBe(true);
    expect(schema('csv').safeParse({ delimiter: 'x' }).success).toBe(false);
    expect(schema('tsv').safeParse({ delimiter: ',' }).success).toBe(false);
    expect(schema('json').safeParse({ sheet: 0 }).success).toBe(false);
    expect(schema('html').safeParse({ extra: true }).success).toBe(false);
    expect(schema('xlsx').safeParse({ sheetName: 'Out' }).success).toBe(true);
    expect(schema('xlsx').safeParse({ sheetName: 'a/b' }).success).toBe(false);
    expect(schema('xlsx').safeParse({ sheet: 1 }).success).toBe(false);
  });

  it('refuses options that do not apply, and edges it does not have', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'csv', 'tsv', { options: { sheet: 1 } })),
      'INVALID_OPTIONS',
    );
    await expectCode(
      converter.convert(context(ws, 'csv', 'json', { options: { bom: 1 } })),
      'INVALID_OPTIONS',
    );
    await expectCode(converter.convert(context(ws, 'xlsx', 'pdf')), 'UNSUPPORTED_CONVERSION');
    await expectNoLeftovers(ws);
  });
});

describe('xlsx input', () => {
  it('writes the first sheet as exact CSV, reporting progress and CPU time', async () => {
    const ws = await workspace();
    const progress: number[] = [];
    const ctx = context(ws, 'xlsx', 'csv', { progress });
    const result = await converter.convert(ctx);
    expect(await readFile(ctx.outputPath, 'utf8')).toBe(DATA_CSV);
    expect(result?.cpuMs).toBeGreaterThan(0);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(await import('node:fs/promises').then((fs) => fs.readdir(ws.temp))).toEqual([]);
  });

  it('reaches the second sheet by name, by position and by a digit string', async () => {
    const ws = await workspace();
    const second = 'city\tpopulation\r\nParis\t2102650\r\nМосква\t13010112\r\n';
    expect(await convertText(ws, 'xlsx', 'tsv', { options: { sheet: 'Second' } })).toBe(second);
    expect(await convertText(ws, 'xlsx', 'tsv', { options: { sheet: 2 } })).toBe(second);
    expect(await convertText(ws, 'xlsx', 'tsv', { options: { sheet: '2' } })).toBe(second);
    // Excel's sheet names are case-insensitive.
    expect(await convertText(ws, 'xlsx', 'tsv', { options: { sheet: 'second' } })).toBe(second);
    expect(await convertText(ws, 'xlsx', 'tsv', { options: { sheet: 1 } })).toContain(
      'alpha\t1\tcomma, inside',
    );
  });

  it('names the available sheets when the sheet does not exist', async () => {
    const ws = await workspace();
    for (const sheet of ['Third', 3]) {
      const error = await expectCode(
        converter.convert(context(ws, 'xlsx', 'csv', { options: { sheet } })),
        'INVALID_OPTIONS',
      );
      expect(error.details).toEqual({ sheet, available: ['Data', 'Second'] });
      expect(error.message).toContain('"Data", "Second"');
    }
    await expectNoLeftovers(ws);
  });

  it('writes JSON rows keyed by the header row, with typed values', async () => {
    const ws = await workspace();
    expect(JSON.parse(await convertText(ws, 'xlsx', 'json'))).toEqual([
      { name: 'alpha', value: 1, note: 'comma, inside' },
      { name: 'beta', value: 2.5, note: 'line with "quotes"' },
      { name: 'gamma', value: -3, note: 'café' },
    ]);
    expect(JSON.parse(await convertText(ws, 'xlsx', 'json', { options: { sheet: 'Second' } }))).toEqual([
      { city: 'Paris', population: 2102650 },
      { city: 'Москва', population: 13010112 },
    ]);
  });

  it('writes an escaped HTML table in a UTF-8 document', async () => {
    const ws = await workspace();
    const html = await convertText(ws, 'xlsx', 'html');
    expectHtmlDocument(html, 'Data');
    expect(html).toContain('<tr><th>name</th><th>value</th><th>note</th></tr>');
    expect(html).toContain('<td>line with &quot;quotes&quot;</td>');
    expect(html).toContain('<td class="n">2.5</td>');
    expect(html).toContain('<td>café</td>');
    expect(html.trimEnd()).toMatch(/<\/table>\n<\/body>\n<\/html>$/);
  });

  it('writes values, not formulas or formatting: cached results, ISO dates, text of rich text, links, errors', async () => {
    const ws = await workspace();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Kinds');
    sheet.addRow(['kind', 'value']);
    sheet.addRow(['formula', { formula: 'B1*2', result: 4 }]);
    sheet.addRow(['formula text', { formula: 'CONCAT("a","b")', result: 'ab' }]);
    sheet.addRow(['date', new Date(Date.UTC(2024, 2, 1))]).getCell(2).numFmt = 'yyyy-mm-dd';
    sheet.addRow(['datetime', new Date(Date.UTC(2024, 2, 1, 13, 45))]).getCell(2).numFmt = 'yyyy-mm-dd hh:mm';
    sheet.addRow(['time', new Date(Date.UTC(1899, 11, 30, 12, 30))]).getCell(2).numFmt = 'hh:mm';
    sheet.addRow(['formula date', { formula: 'DATE(2024,3,1)', result: 45352 }]).getCell(2).numFmt =
      'd/m/yyyy';
    sheet.addRow(['rich', { richText: [{ text: 'bold', font: { bold: true } }, { text: ' <plain>' }] }]);
    sheet.addRow(['link', { text: 'example', hyperlink: 'https://example.com/' }]);
    sheet.addRow(['error', { error: '#DIV/0!' }]);
    sheet.addRow(['bool', true]);
    sheet.addRow(['leading zero text', '007']);
    // Row 14 after a blank row 13: blank rows between data are kept, trailing ones are not.
    sheet.getRow(14).values = ['after gap', 1];
    sheet.getRow(20).getCell(3).value = null;
    const input = join(ws.inputs, 'kinds.xlsx');
    await workbook.xlsx.writeFile(input);

    expect(await convertText(ws, 'xlsx', 'csv', { inputPath: input })).toBe(
      [
        'kind,value',
        'formula,4',
        'formula text,ab',
        'date,2024-03-01',
        'datetime,2024-03-01T13:45:00',
        'time,12:30:00',
        'formula date,2024-03-01',
        'rich,bold <plain>',
        'link,example',
        'error,#DIV/0!',
        'bool,TRUE',
        'leading zero text,007',
        ',',
        'after gap,1',
        '',
      ].join('\r\n'),
    );
    const rows = JSON.parse(await convertText(ws, 'xlsx', 'json', { inputPath: input }));
    expect(rows).toHaveLength(12);
    expect(rows[5]).toEqual({ kind: 'formula date', value: '2024-03-01' });
    expect(rows[9]).toEqual({ kind: 'bool', value: true });
    const html = await convertText(ws, 'xlsx', 'html', { inputPath: input });
    expect(html).toContain('<td>bold &lt;plain&gt;</td>');
  });
});

describe('numbers as Excel holds them', () => {
  it('writes 15 significant digits, as Excel and LibreOffice do, from cells and cached results', async () => {
    // A sum in a real sheet (issue 32's survey) stores 294.80000000000007: Excel shows 294.8.
    const ws = await workspace();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Sums');
    sheet.addRow(['stored', 'computed', 'small', 'big', 'third']);
    sheet.addRow([
      0.1 + 0.2,
      { formula: 'A2*2', result: 147.40000000000003 * 2 },
      1.5e-7,
      123456789012345680000,
      1 / 3,
    ]);
    const input = join(ws.inputs, 'sums.xlsx');
    await workbook.xlsx.writeFile(input);
    expect(await convertText(ws, 'xlsx', 'csv', { inputPath: input })).toBe(
      'stored,computed,small,big,third\r\n0.3,294.8,1.5e-7,123456789012346000000,0.333333333333333\r\n',
    );
    const [row] = JSON.parse(await convertText(ws, 'xlsx', 'json', { inputPath: input }));
    expect(row).toEqual({
      stored: 0.3,
      computed: 294.8,
      small: 1.5e-7,
      big: 123456789012346000000,
      third: 0.333333333333333,
    });
  });

  it("keeps a CSV field's digits: only numbers read from a workbook are Excel's", async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'digits.csv');
    await writeFile(input, 'value\r\n0.30000000000000004\r\n');
    expect(await convertText(ws, 'csv', 'json', { inputPath: input })).toContain('0.30000000000000004');
  });
});

describe('text input', () => {
  it('round-trips csv -> xlsx -> csv keeping every value, with numbers as numeric cells', async () => {
    const ws = await workspace();
    const source =
      'id,code,amount,text\n1,007,2.5,"a, b"\n2,1.50,-3,"multi\nline"\n3,+1,1e5,"say ""hi"""\n4,,0.001,\n';
    const input = join(ws.inputs, 'in.csv');
    await writeFile(input, source);
    const xlsx = join(ws.outputs, 'mid.xlsx');
    await converter.convert(context(ws, 'csv', 'xlsx', { inputPath: input, outputPath: xlsx }));
    expect(await readCells(xlsx)).toEqual([
      ['id', 'code', 'amount', 'text'],
      [1, '007', 2.5, 'a, b'],
      [2, '1.50', -3, 'multi\nline'],
      [3, '+1', '1e5', 'say "hi"'],
      [4, undefined, 0.001],
    ]);
    const back = await convertText(ws, 'xlsx', 'csv', { inputPath: xlsx });
    expect(back).toBe(source.replace(/\n(?=\d|$)/g, '\r\n'));
  });

  it('reads a CSV with a BOM, mixed line endings, quoted commas, quotes and line breaks, and ragged rows', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'quirks.csv');
    await writeFile(input, '\uFEFFa,b,c\r\n1,"x, y",3\n"q ""w""",5\r"line\r\nbreak",7,8,9\r\nshort\n');
    const xlsx = join(ws.outputs, 'quirks.xlsx');
    await converter.convert(context(ws, 'csv', 'xlsx', { inputPath: input, outputPath: xlsx }));
    expect(await readCells(xlsx)).toEqual([
      ['a', 'b', 'c'],
      [1, 'x, y', 3],
      ['q "w"', 5],
      // XML turns a CR LF inside a cell into LF.
      ['line\nbreak', 7, 8, 9],
      ['short'],
    ]);
  });

  it('names the written sheet with sheetName', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'tsv', 'xlsx', { options: { sheetName: 'Imported' } });
    await converter.convert(ctx);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(ctx.outputPath);
    expect(workbook.worksheets.map((s) => s.name)).toEqual(['Imported']);
    expect(await readCells(ctx.outputPath)).toContainEqual(['gamma', -3, 'café']);
  });

  it('round-trips json -> xlsx -> json with value types', async () => {
    const ws = await workspace();
    const xlsx = join(ws.outputs, 'rows.xlsx');
    await converter.convert(context(ws, 'json', 'xlsx', { outputPath: xlsx }));
    expect(await readCells(xlsx)).toEqual([
      ['name', 'value', 'note'],
      ['alpha', 1, 'comma, inside quotes'],
      ['beta', 2.5, 'line with "quotes"'],
      ['gamma', -3, 'café'],
    ]);
    const back = await convertText(ws, 'xlsx', 'json', { inputPath: xlsx });
    expect(JSON.parse(back)).toEqual(JSON.parse(await readFile(fixture('fixture.json'), 'utf8')));
  });

  it('takes JSON objects with differing keys, keeps types and stringifies nested values', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'mixed.json');
    await writeFile(
      input,
      JSON.stringify([
        { a: 1, b: '02' },
        { b: true, c: { d: [1] } },
        { a: null, __proto__x: 'p' },
      ]),
    );
    expect(await convertText(ws, 'json', 'csv', { inputPath: input })).toBe(
      'a,b,c,__proto__x\r\n1,02,,\r\n,TRUE,"{""d"":[1]}",\r\n,,,p\r\n',
    );
    const xlsx = join(ws.outputs, 'mixed.xlsx');
    await converter.convert(context(ws, 'json', 'xlsx', { inputPath: input, outputPath: xlsx }));
    expect(await readCells(xlsx)).toEqual([
      ['a', 'b', 'c', '__proto__x'],
      [1, '02'],
      [undefined, true, '{"d":[1]}'],
      [undefined, undefined, undefined, 'p'],
    ]);
  });

  it('converts csv, tsv and json into each other directly', async () => {
    const ws = await workspace();
    expect(await convertText(ws, 'tsv', 'csv')).toBe(
      'name,value,note\r\nalpha,1,first\r\nbeta,2.5,second\r\ngamma,-3,café\r\n',
    );
    expect(JSON.parse(await convertText(ws, 'csv', 'json'))).toEqual(
      JSON.parse(await readFile(fixture('fixture.json'), 'utf8')),
    );
    expect(await convertText(ws, 'json', 'tsv')).toBe(
      'name\tvalue\tnote\r\nalpha\t1\tcomma, inside quotes\r\nbeta\t2.5\t"line with ""quotes"""\r\ngamma\t-3\tcafé\r\n',
    );
  });

  it('writes a CSV with another delimiter and a BOM when asked', async () => {
    const ws = await workspace();
    const text = await convertText(ws, 'xlsx', 'csv', { options: { delimiter: ';', bom: true } });
    // A comma no longer needs quotes; a quote still does.
    expect(text).toBe(
      '\uFEFFname;value;note\r\nalpha;1;comma, inside\r\nbeta;2.5;"line with ""quotes"""\r\ngamma;-3;café\r\n',
    );
  });

  it('gives duplicate and blank header cells unique JSON keys', async () => {
    const ws = await workspace();
    const input = join(ws.inputs, 'dupes.csv');
    await writeFile(input, 'x,x,,y\n1,2,3,4,5\n\n');
    expect(JSON.parse(await convertText(ws, 'csv', 'json', { inputPath: input }))).toEqual([
      { x: 1, x_2: 2, column3: 3, y: 4, column5: 5 },
    ]);
  });
});
