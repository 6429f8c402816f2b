/**
 * Spreadsheets and presentations through the LibreOffice pool, each result read back for content:
 * workbooks cell by cell with exceljs (both sheets, UTF-8 and quoting intact), CSV byte for byte
 * (and byte for byte as the spreadsheet converter writes it, with each delimiter and the BOM),
 * PDFs page by page with pdf.js (one page per sheet, one per slide). fixture.key is tested when it
 * exists (another issue makes it).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { afterAll, expect, it } from 'vitest';
import { createSpreadsheetConverter } from '../../src/converters/exceljs/index.js';
import { createLibreOfficeConverter } from '../../src/converters/libreoffice/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  contextFor,
  DATA_ROWS,
  expectCode,
  fixture,
  LO_AVAILABLE,
  LO_INSTALL,
  readPdf,
  readWorkbook,
  SECOND_ROWS,
  workspace,
} from './libreoffice-helpers.js';

describeWithEngine(
  'LibreOffice',
  LO_AVAILABLE,
  LO_INSTALL,
  'libreoffice spreadsheets and presentations',
  () => {
    const converter = withOptionsParsed(createLibreOfficeConverter({ poolSize: 2 }));
    afterAll(() => converter.close());

    it.each(['ods', 'xls'])('converts %s to xlsx keeping both sheets cell by cell', async (from) => {
      const ws = await workspace();
      const ctx = context(ws, from, 'xlsx');
      await converter.convert(ctx);
      expect(await readWorkbook(ctx.outputPath)).toEqual({ Data: DATA_ROWS, Second: SECOND_ROWS });
    });

    it('converts xlsx to ods and xls, which read back cell by cell', async () => {
      const ws = await workspace();
      for (const to of ['ods', 'xls']) {
        const ctx = context(ws, 'xlsx', to);
        await converter.convert(ctx);
        const back = contextFor(ws, ctx.outputPath, to, 'xlsx', `back-${to}.xlsx`);
        await converter.convert(back);
        expect(await readWorkbook(back.outputPath)).toEqual({ Data: DATA_ROWS, Second: SECOND_ROWS });
      }
    });

    it('converts xlsx to UTF-8 csv (first sheet) and csv to xlsx, reading the csv as UTF-8', async () => {
      const ws = await workspace();
      const csv = context(ws, 'xlsx', 'csv');
      await converter.convert(csv);
      // Quoted only where a field needs it, records ended by CRLF, as the spreadsheet converter
      // (exceljs) writes CSV.
      expect(await readFile(csv.outputPath, 'utf8')).toBe(
        'name,value,note\r\nalpha,1,"comma, inside"\r\nbeta,2.5,"line with ""quotes"""\r\ngamma,-3,café\r\n',
      );
      const xlsx = context(ws, 'csv', 'xlsx');
      await converter.convert(xlsx);
      const [rows] = Object.values(await readWorkbook(xlsx.outputPath));
      expect(rows).toEqual([
        ['name', 'value', 'note'],
        ['alpha', '1', 'comma, inside quotes'],
        ['beta', '2.5', 'line with "quotes"'],
        ['gamma', '-3', 'café'],
      ]);
    });

    it.each([[{}], [{ delimiter: ';', bom: true }], [{ delimiter: '|' }]])(
      'writes the same CSV bytes as the spreadsheet converter with options %o',
      async (options) => {
        const ws = await workspace();
        const office = context(ws, 'xlsx', 'csv', { options });
        await converter.convert(office);
        const exceljs = contextFor(ws, office.inputPath, 'xlsx', 'csv', 'exceljs.csv');
        await withOptionsParsed(createSpreadsheetConverter()).convert({ ...exceljs, options });
        const [ours, theirs] = [await readFile(office.outputPath), await readFile(exceljs.outputPath)];
        expect(ours.toString('utf8')).toBe(theirs.toString('utf8'));
        expect(ours.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe('bom' in options);
      },
    );

    it('refuses CSV options it does not have, and options on other targets', async () => {
      const ws = await workspace();
      await expectCode(
        converter.convert(context(ws, 'xlsx', 'csv', { options: { delimiter: '\t' } })),
        'INVALID_OPTIONS',
      );
      await expectCode(
        converter.convert(context(ws, 'xlsx', 'ods', { options: { delimiter: ';' } })),
        'INVALID_OPTIONS',
      );
    });

    it('converts spreadsheets to pdf (every sheet) and html', async () => {
      const ws = await workspace();
      const pdf = context(ws, 'xls', 'pdf');
      await converter.convert(pdf);
      const { text } = await readPdf(pdf.outputPath);
      for (const cell of ['alpha', '2.5', 'café', 'Москва', '13010112']) expect(text).toContain(cell);
      const html = context(ws, 'ods', 'html');
      await converter.convert(html);
      const page = await readFile(html.outputPath, 'utf8');
      for (const cell of ['alpha', 'gamma', 'Москва']) expect(page).toContain(cell);
    });

    it.each(['pptx', 'ppt', 'odp'])('converts %s to pdf with two pages, one per slide', async (from) => {
      const ws = await workspace();
      const ctx = context(ws, from, 'pdf');
      await converter.convert(ctx);
      const pdf = await readPdf(ctx.outputPath);
      expect(pdf.pages).toBe(2);
      for (const text of ['fileconv fixture', 'Second slide', 'Привет from slide two.'])
        expect(pdf.text).toContain(text);
    });

    it('converts between pptx and odp keeping both slides', async () => {
      const ws = await workspace();
      const odp = context(ws, 'pptx', 'odp');
      await converter.convert(odp);
      const pptx = contextFor(ws, odp.outputPath, 'odp', 'pptx');
      await converter.convert(pptx);
      const pdf = contextFor(ws, pptx.outputPath, 'pptx', 'pdf');
      await converter.convert(pdf);
      const { pages, text } = await readPdf(pdf.outputPath);
      expect(pages).toBe(2);
      expect(text).toContain('Second slide');
    });

    it.runIf(existsSync(fixture('fixture.key')))(
      'converts a Keynote presentation to pdf and pptx',
      async () => {
        const ws = await workspace();
        const pdf = context(ws, 'key', 'pdf');
        await converter.convert(pdf);
        const { pages, text } = await readPdf(pdf.outputPath);
        expect(pages).toBe(2);
        expect(text).toContain('fileconv fixture');
        expect(text).toContain('Second slide');
        await converter.convert(context(ws, 'key', 'pptx'));
      },
    );
  },
);
