/**
 * fileconv/pdf's forms and `fileconv pdf fill-form|flatten|form-fields`, on a form pdf-lib makes
 * here (test/helpers/pdf-samples.ts). What they write is read back by tools that did not write
 * it: qpdf --json (the AcroForm, its fields and values), pdftotext (flattened values as page
 * text, and poppler's complaints on stderr), pdffonts (DejaVu embedded for Greek and Cyrillic).
 * And what they refuse: a field the form lacks, a value of the wrong kind or not among the
 * options, each named, with nothing written.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  fillPdfForm,
  flattenPdfForm,
  readPdfFormFields,
  writePdfFormFields,
} from '../src/operations/pdf/index.js';
import { describeWithEngine } from './helpers/engines.js';
import { formPdf } from './helpers/pdf-samples.js';
import { CLI_ARGS } from './helpers/serve-process.js';
import { fixture, tempDir } from './helpers/temp.js';

const TOOLS = ['/usr/bin/qpdf', '/usr/bin/pdftotext', '/usr/bin/pdffonts'].every((path) => existsSync(path));

/** The AcroForm as qpdf sees it: whether there is one, and each field's full name and value. */
function acroForm(path: string): { hasacroform: boolean; fields: { fullname: string; value: unknown }[] } {
  return JSON.parse(execFileSync('qpdf', ['--json', '--json-key=acroform', path], { encoding: 'utf8' }))
    .acroform;
}

/** qpdf's value of each field by name (text values are prefixed 'u:'). */
function qpdfValues(path: string): Record<string, unknown> {
  return Object.fromEntries(acroForm(path).fields.map((field) => [field.fullname, field.value]));
}

/** pdftotext's page text, failing on anything poppler reports (a dangling reference, say). */
function pageText(path: string): string {
  const result = spawnSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  return result.stdout;
}

describeWithEngine('qpdf, poppler-utils', TOOLS, 'apt-get install qpdf poppler-utils', 'PDF forms', () => {
  it('lists every field with its type, value and options', async () => {
    const form = await formPdf(await tempDir());
    const fields = await readPdfFormFields(form);
    expect(fields.map((field) => [field.name, field.type, field.value])).toEqual([
      ['name', 'text', null],
      ['notes', 'text', null],
      ['agree', 'checkbox', false],
      ['size', 'radio', null],
      ['country', 'dropdown', null],
      ['tags', 'list', []],
      ['reset', 'button', null],
      ['code', 'text', null],
    ]);
    expect(fields.find((field) => field.name === 'country')).toMatchObject({
      options: ['France', 'Spain', 'Peru'],
      multiSelect: false,
      editable: false,
    });
    expect(fields.find((field) => field.name === 'code')).toMatchObject({ maxLength: 4, multiline: false });
    expect(fields.find((field) => field.name === 'notes')).toMatchObject({ multiline: true });
    // A PDF without a form has no fields, and is not an error.
    expect(await readPdfFormFields(fixture('fixture.pdf'))).toEqual([]);
  });

  it("fills every kind of field; the values are the form's, as qpdf and form-fields read them", async () => {
    const dir = await tempDir();
    const filled = join(dir, 'filled.pdf');
    const values = {
      name: 'Ana Smith',
      notes: 'first line\nsecond line',
      agree: true,
      size: 'M',
      country: 'Peru',
      tags: ['red', 'blue'],
      code: 'AB12',
    };
    expect(await fillPdfForm(await formPdf(dir), filled, { fields: values })).toEqual({
      filled: 7,
      flattened: false,
    });
    const read = qpdfValues(filled);
    expect(read).toMatchObject({ name: 'u:Ana Smith', country: 'u:Peru', code: 'u:AB12', agree: '/Yes' });
    expect(read.size).not.toBe('/Off');
    const listed = Object.fromEntries(
      (await readPdfFormFields(filled)).map((field) => [field.name, field.value]),
    );
    expect(listed).toMatchObject(values);
    // The JSON the form-fields operation writes is the same listing.
    const json = join(dir, 'fields.json');
    await writePdfFormFields(filled, json);
    const written = JSON.parse(await readFile(json, 'utf8')) as {
      fields: { name: string; value: unknown }[];
    };
    expect(written.fields.find((field) => field.name === 'tags')?.value).toEqual(['red', 'blue']);
  });

  it('with flatten, puts the values into the page text and removes the form', async () => {
    const dir = await tempDir();
    const flat = join(dir, 'flat.pdf');
    await fillPdfForm(await formPdf(dir), flat, {
      fields: { name: 'Ana Smith', country: 'Spain', code: 'Z9', agree: true },
      flatten: true,
    });
    const text = pageText(flat);
    for (const value of ['Ana Smith', 'Spain', 'Z9']) expect(text).toContain(value);
    expect(acroForm(flat)).toMatchObject({ hasacroform: false, fields: [] });
    expect(await readPdfFormFields(flat)).toEqual([]);
  });

  it('draws Greek and Cyrillic values in embedded DejaVu Sans', async () => {
    const dir = await tempDir();
    const flat = join(dir, 'greek.pdf');
    await fillPdfForm(await formPdf(dir), flat, { fields: { name: 'Ελένη Жанна' }, flatten: true });
    expect(pageText(flat)).toContain('Ελένη Жанна');
    expect(execFileSync('pdffonts', [flat], { encoding: 'utf8' })).toMatch(
      /DejaVuSans\S*\s+CID TrueType.*yes/,
    );
  });

  it('flattens a filled form: its values stay, as page text', async () => {
    const dir = await tempDir();
    const filled = join(dir, 'filled.pdf');
    await fillPdfForm(await formPdf(dir), filled, { fields: { name: 'Kept Value', country: 'France' } });
    const flat = join(dir, 'flat.pdf');
    expect(await flattenPdfForm(filled, flat)).toEqual({ fields: 8 });
    expect(pageText(flat)).toMatch(/Kept Value[\s\S]*France/);
    expect(acroForm(flat).hasacroform).toBe(false);
  });

  it('refuses fields the form lacks and values that do not fit, naming each field, writing nothing', async () => {
    const dir = await tempDir();
    const form = await formPdf(dir);
    const out = join(dir, 'out.pdf');
    const refusal = (fields: Record<string, unknown>) =>
      fillPdfForm(form, out, { fields: fields as never }).then(
        () => expect.unreachable('filled'),
        (error: { code: string; details?: { issues: { path: string; message: string }[] } }) => error,
      );
    const many = await refusal({
      nmae: 'Ana',
      agree: 'yes',
      country: 'Italy',
      size: true,
      tags: ['red', 'pink'],
      code: 'TOO LONG',
      name: 'two\nlines',
      reset: 'x',
    });
    expect(many.code).toBe('INVALID_OPTIONS');
    expect(Object.fromEntries(many.details!.issues.map((issue) => [issue.path, issue.message]))).toEqual({
      'fields.nmae': expect.stringMatching(/no such field \(its fields: "name", "notes"/),
      'fields.agree': 'a checkbox takes true or false, not text',
      'fields.country': '"Italy" is not one of its options ("France", "Spain", "Peru")',
      'fields.size': expect.stringMatching(/radio group takes one of its options .*not true/),
      'fields.tags': expect.stringMatching(/"pink" is not one of its options/),
      'fields.code': 'takes at most 4 characters, not 8',
      'fields.name': 'is one line: the text has a line break',
      'fields.reset': 'a button holds no value to fill',
    });
    expect((await refusal({ country: ['France', 'Spain'] })).details!.issues[0]!.message).toBe(
      'takes one option, not 2',
    );
    await expect(fillPdfForm(form, out, { fields: { name: '草稿' } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: expect.stringMatching(/"草" is in none of the fonts/),
    });
    await expect(fillPdfForm(form, out, { fields: { name: 1 as never } })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
    const encrypted = fixture('bad/encrypted.pdf');
    await expect(fillPdfForm(encrypted, out, { fields: { name: 'x' } })).rejects.toMatchObject({
      code: 'PASSWORD_PROTECTED',
    });
    await expect(flattenPdfForm(encrypted, out)).rejects.toMatchObject({ code: 'PASSWORD_PROTECTED' });
    const pngAsPdf = join(dir, 'image.pdf');
    await copyFile(fixture('fixture.png'), pngAsPdf);
    await expect(readPdfFormFields(pngAsPdf)).rejects.toMatchObject({ code: 'CORRUPT_INPUT' });
    expect(existsSync(out)).toBe(false);
  });

  it('runs from the command line: form-fields, fill-form (flags and a JSON file), flatten', async () => {
    const dir = await tempDir();
    const form = await formPdf(dir);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [...CLI_ARGS, 'pdf', ...args], { encoding: 'utf8' });
    const listing = cli('form-fields', form, '--json');
    expect(listing.status, listing.stderr).toBe(0);
    const fields = JSON.parse(listing.stdout) as { fields: { name: string; value: unknown }[] };
    expect(fields.fields.map((field) => field.name)).toContain('country');
    const plain = cli('form-fields', form);
    expect(plain.stdout).toMatch(/^country {2}dropdown {2}- {2}\[France \| Spain \| Peru\]$/m);
    expect(plain.stdout).toMatch(/^agree {2}checkbox {2}false$/m);

    const filled = join(dir, 'filled.pdf');
    const fill = cli(
      'fill-form',
      form,
      '--field',
      'name=Ana Smith',
      '--field',
      'country=Spain',
      '--check',
      'agree',
      '-o',
      filled,
    );
    expect(fill.status, fill.stderr).toBe(0);
    expect(fill.stdout).toMatch(/pdf fill-form: wrote .*filled\.pdf \(3 field\(s\) set\)/);
    expect(qpdfValues(filled)).toMatchObject({ name: 'u:Ana Smith', country: 'u:Spain', agree: '/Yes' });

    // The listing edited in place is a --fields file.
    const edited = fields.fields.map((field) =>
      field.name === 'notes' ? { ...field, value: 'From JSON' } : field,
    );
    const valuesFile = join(dir, 'values.json');
    await writeFile(valuesFile, JSON.stringify({ fields: edited }));
    const fromJson = join(dir, 'from-json.pdf');
    const byFile = cli('fill-form', form, '--fields', valuesFile, '--flatten', '-o', fromJson);
    expect(byFile.status, byFile.stderr).toBe(0);
    expect(pageText(fromJson)).toContain('From JSON');

    const flat = join(dir, 'flat.pdf');
    const flatten = cli('flatten', filled, '-o', flat);
    expect(flatten.status, flatten.stderr).toBe(0);
    expect(flatten.stdout).toMatch(/pdf flatten: wrote .*flat\.pdf \(8 field\(s\) drawn into the pages\)/);
    expect(pageText(flat)).toContain('Ana Smith');

    const wrong = cli('fill-form', form, '--field', 'nmae=Ana', '-o', join(dir, 'x.pdf'));
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toMatch(/fields\.nmae: the form has no such field.*\[INVALID_OPTIONS\]/);
    const none = cli('fill-form', form, '-o', join(dir, 'x.pdf'));
    expect(none.status).not.toBe(0);
    expect(none.stderr).toMatch(/needs values/);
  });
});
