/**
 * `fileconv pdf fill-form|flatten|form-fields`: PDF forms on local files (src/operations/pdf/
 * fill-form.ts, form-fields.ts). fill-form takes values as flags (`--field name=value` for text
 * and choices, `--check`/`--uncheck` for checkboxes) or as the JSON form-fields lists them
 * (`--fields values.json`); the library checks them against the form.
 */
import { readFile } from 'node:fs/promises';
import type { PdfFieldValue } from '../../src/operations/pdf/form-fields.js';
import { UsageError } from '../support/usage-error.js';

/** The flags of `fileconv pdf fill-form` as commander parses them. */
export interface PdfFillFormFlags {
  field?: Record<string, string>;
  check?: string[];
  uncheck?: string[];
  fields?: string;
  flatten?: boolean;
  output: string;
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** `--fields`' file: an object of values by field name (a form-fields listing's `fields` array is read too). */
async function fieldsFile(path: string): Promise<Record<string, PdfFieldValue>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new UsageError(`--fields ${path}: not a readable JSON file (${(error as Error).message}).`);
  }
  const listing = (parsed as { fields?: unknown } | null)?.fields;
  // A form-fields listing edited in place: `{ fields: [{ name, value }, ...] }`.
  if (Array.isArray(listing)) {
    return Object.fromEntries(
      listing
        .filter((field: { type?: string }) => field.type !== 'button' && field.type !== 'signature')
        .map((field: { name: string; value: PdfFieldValue }) => [field.name, field.value]),
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new UsageError(`--fields ${path}: expected an object of values by field name.`);
  }
  return parsed as Record<string, PdfFieldValue>;
}

export async function runPdfFillForm(input: string, flags: PdfFillFormFlags): Promise<void> {
  const fields: Record<string, PdfFieldValue> = {
    ...(flags.fields === undefined ? {} : await fieldsFile(flags.fields)),
    ...flags.field,
    ...Object.fromEntries((flags.check ?? []).map((name) => [name, true])),
    ...Object.fromEntries((flags.uncheck ?? []).map((name) => [name, false])),
  };
  if (Object.keys(fields).length === 0) {
    throw new UsageError(
      'pdf fill-form needs values: --field name=value, --check name, or --fields values.json.',
    );
  }
  const { fillPdfForm } = await import('../../src/operations/pdf/fill-form.js');
  const result = await fillPdfForm(input, flags.output, { fields, flatten: flags.flatten === true });
  say(
    `pdf fill-form: wrote ${flags.output} (${result.filled} field(s) set${result.flattened ? ', flattened' : ''})`,
  );
}

export async function runPdfFlatten(input: string, options: { output: string }): Promise<void> {
  const { flattenPdfForm } = await import('../../src/operations/pdf/fill-form.js');
  const result = await flattenPdfForm(input, options.output);
  say(`pdf flatten: wrote ${options.output} (${result.fields} field(s) drawn into the pages)`);
}

export async function runPdfFormFields(input: string, options: { json?: boolean }): Promise<void> {
  const { readPdfFormFields } = await import('../../src/operations/pdf/form-fields.js');
  const fields = await readPdfFormFields(input);
  if (options.json) {
    say(JSON.stringify({ fields }, null, 2));
    return;
  }
  if (fields.length === 0) say('no form fields');
  for (const field of fields) {
    // Text quoted (an empty one is seen), no value as '-', lists and checkboxes as JSON writes them.
    const value = field.value === null ? '-' : JSON.stringify(field.value);
    const options = field.options ? `  [${field.options.join(' | ')}]` : '';
    say(`${field.name}  ${field.type}  ${value}${options}`);
  }
}
