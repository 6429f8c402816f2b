/**
 * Filling a PDF form and flattening it, on pdf-lib. fill-form sets each named field (text, a
 * checkbox's state, the option of a radio group, dropdown or list), after checking every value
 * against the field it names: a name the form lacks, a value of the wrong kind, or an option the
 * field does not offer is INVALID_OPTIONS naming the field (in `details.issues`, as every option
 * refusal), and nothing is written. Flattening draws each field's appearance into its page and
 * removes the form, so the values become page text no one can edit. Field appearances are drawn
 * in Helvetica, or in embedded DejaVu Sans when a value needs more than Latin-1 (unicode-font.ts).
 * A read-only field is filled too: the flag stops a viewer's user, not the document's owner.
 */
import type { PDFDocument, PDFField, PDFFont, PDFForm } from 'pdf-lib';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { OptionIssue } from '../../core/options.js';
import { loadPdfLib, type PdfLibModule } from '../../kit/libraries/pdf.js';
import { describeField, type PdfFieldType, type PdfFieldValue } from './form-fields.js';
import { parseOperationOptions } from './operation-options.js';
import { openPdf, type PdfRunOptions, savePdf } from './pdf-document.js';
import { embedUnicodeFont, isWinAnsi } from './unicode-font.js';

/** Most fields one fill sets, and the longest text a value holds. */
const MAX_FIELDS = 1000;
const MAX_VALUE_LENGTH = 10_000;

const fieldValue = z.union([
  z.string().max(MAX_VALUE_LENGTH),
  z.boolean(),
  z.array(z.string().max(MAX_VALUE_LENGTH)).max(MAX_FIELDS),
  z.null(),
]);

export const fillFormOptionsSchema = z.strictObject({
  /** Each field's value by its full name: text, true/false for a checkbox, an option (or options) for a radio group, dropdown or list; null clears. */
  fields: z
    .record(z.string().min(1).max(1000), fieldValue)
    .refine((fields) => Object.keys(fields).length <= MAX_FIELDS, {
      message: `at most ${MAX_FIELDS} fields`,
    })
    .describe(
      "Each field's value by its full name (as form-fields lists them): text; true or false for a checkbox; an option for a radio group or dropdown; an option or a list of options for a list; null clears a field.",
    ),
  /** Draw the values into the pages and remove the form. Default false. */
  flatten: z
    .boolean()
    .default(false)
    .describe(
      'Draw the values into the pages and remove the form, so they can no longer be edited. Default false.',
    ),
});

export type FillFormOptions = z.input<typeof fillFormOptionsSchema> & PdfRunOptions;

const CLEARABLE: ReadonlySet<PdfFieldType> = new Set(['text', 'radio', 'dropdown', 'list']);

/** Why `value` does not fit `field`, or undefined when it does. */
function misfit(lib: PdfLibModule, field: PDFField, value: PdfFieldValue): string | undefined {
  const described = describeField(lib, field);
  const kind = Array.isArray(value)
    ? 'a list'
    : value === null || typeof value === 'boolean'
      ? `${value}`
      : 'text';
  const choices = (described.options ?? []).map((option) => JSON.stringify(option)).join(', ');
  const chosen = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  // null clears what holds text or a choice; a checkbox is true or false, never unset.
  if (value === null && CLEARABLE.has(described.type)) return undefined;
  switch (described.type) {
    case 'text':
      if (typeof value !== 'string') return `a text field takes text, not ${kind}`;
      if (described.maxLength !== undefined && value.length > described.maxLength)
        return `takes at most ${described.maxLength} characters, not ${value.length}`;
      if (!described.multiline && /[\r\n]/.test(value)) return 'is one line: the text has a line break';
      return undefined;
    case 'checkbox':
      return typeof value === 'boolean' ? undefined : `a checkbox takes true or false, not ${kind}`;
    case 'radio':
      if (typeof value !== 'string')
        return `a radio group takes one of its options (${choices}), not ${kind}`;
      return described.options?.includes(value)
        ? undefined
        : `${JSON.stringify(value)} is not one of its options (${choices})`;
    case 'dropdown':
    case 'list': {
      if (chosen === undefined)
        return `a ${described.type} takes one of its options (${choices}), not ${kind}`;
      if (chosen.length > 1 && !described.multiSelect) return `takes one option, not ${chosen.length}`;
      if (described.editable) return undefined;
      const stranger = chosen.find((option) => !described.options?.includes(option));
      return stranger === undefined
        ? undefined
        : `${JSON.stringify(stranger)} is not one of its options (${choices})`;
    }
    default:
      return `a ${described.type} holds no value to fill`;
  }
}

/** Sets `value` (checked by misfit) on `field`. */
function setValue(lib: PdfLibModule, field: PDFField, value: PdfFieldValue): void {
  if (field instanceof lib.PDFTextField)
    field.setText(value === '' || value === null ? undefined : (value as string));
  else if (field instanceof lib.PDFCheckBox) {
    if (value) field.check();
    else field.uncheck();
  } else if (field instanceof lib.PDFRadioGroup) {
    if (value === null) field.clear();
    else field.select(value as string);
  } else if (field instanceof lib.PDFDropdown || field instanceof lib.PDFOptionList) {
    const chosen = typeof value === 'string' ? [value] : ((value as string[] | null) ?? []);
    if (chosen.length === 0) field.clear();
    else field.select(chosen);
  }
}

/** The text `field`'s appearance draws: its text, the dropdown's choice, every option of a list. */
function appearanceText(lib: PdfLibModule, field: PDFField): string {
  if (field instanceof lib.PDFTextField) return field.getText() ?? '';
  if (field instanceof lib.PDFDropdown) return field.getSelected().join('');
  if (field instanceof lib.PDFOptionList) return field.getOptions().join('');
  return '';
}

/** INVALID_OPTIONS naming every field that does not exist or does not take its value. */
function checkValues(lib: PdfLibModule, form: PDFForm, fields: Record<string, PdfFieldValue>): void {
  const issues: OptionIssue[] = [];
  const names = form.getFields().map((field) => field.getName());
  for (const [name, value] of Object.entries(fields)) {
    const field = form.getFieldMaybe(name);
    const problem = field
      ? misfit(lib, field, value)
      : `the form has no such field${names.length === 0 ? ' (it has no fields)' : ` (its fields: ${listed(names)})`}`;
    if (problem !== undefined) issues.push({ path: `fields.${name}`, message: problem });
  }
  if (issues.length === 0) return;
  throw new FileconvError(
    'INVALID_OPTIONS',
    `Invalid options for the fill-form operation: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}.`,
    { details: { issues } },
  );
}

/** At most twenty names, quoted: a form of hundreds would drown the message. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, 20).map((name) => JSON.stringify(name));
  return names.length > 20 ? `${shown.join(', ')} and ${names.length - 20} more` : shown.join(', ');
}

/**
 * The font field appearances are drawn in: undefined (pdf-lib's Helvetica) when `text` is all
 * WinAnsi, else DejaVu Sans embedded. `whose` names the text in a refusal.
 */
async function appearanceFont(
  document: PDFDocument,
  text: string,
  whose: string,
): Promise<PDFFont | undefined> {
  // Line breaks of a multiline field are laid out as lines, never drawn as characters.
  if ([...text.replace(/[\r\n]/g, '')].every(isWinAnsi)) return undefined;
  return embedUnicodeFont(document, text.replace(/[\r\n]/g, ''), { face: 'regular', whose });
}

/**
 * Draws every field's appearance into its page and removes the form: its fields, then the
 * AcroForm itself, which pdf-lib leaves behind empty (viewers would still offer a form).
 */
function flattenForm(
  lib: PdfLibModule,
  document: PDFDocument,
  form: PDFForm,
  font: PDFFont | undefined,
): void {
  form.updateFieldAppearances(font);
  form.flatten({ updateFieldAppearances: false });
  document.catalog.delete(lib.PDFName.of('AcroForm'));
  dropDeletedAnnotations(lib, document);
}

/**
 * pdf-lib 1.17.1's flatten deletes a field's widget objects but leaves them in their page's
 * /Annots (it removes the appearance's reference there, not the widget's): references to
 * nothing, which poppler reports as "Invalid XRef entry" on every read. They go here.
 */
function dropDeletedAnnotations(lib: PdfLibModule, document: PDFDocument): void {
  for (const page of document.getPages()) {
    const annotations = page.node.Annots();
    if (!annotations) continue;
    for (let index = annotations.size() - 1; index >= 0; index--) {
      const item = annotations.get(index);
      if (item instanceof lib.PDFRef && document.context.lookup(item) === undefined)
        annotations.remove(index);
    }
    if (annotations.size() === 0) page.node.delete(lib.PDFName.of('Annots'));
  }
}

/** Writes `input` to `output` with the given fields set (and with `flatten`, drawn into the pages). */
export async function fillPdfForm(
  input: string,
  output: string,
  options: FillFormOptions,
): Promise<{ filled: number; flattened: boolean }> {
  const o = parseOperationOptions('fill-form', fillFormOptionsSchema, options);
  const lib = await loadPdfLib();
  const document = await openPdf(input, options);
  const form = document.getForm();
  checkValues(lib, form, o.fields);
  const filled = Object.entries(o.fields).map(([name, value]) => {
    const field = form.getField(name);
    setValue(lib, field, value);
    return field;
  });
  const drawn = filled.map((field) => appearanceText(lib, field)).join('');
  const font = await appearanceFont(document, drawn, "fill-form: a value's");
  if (options.signal) throwIfAborted(options.signal);
  if (o.flatten) flattenForm(lib, document, form, font);
  else form.updateFieldAppearances(font);
  await savePdf(document, output);
  return { filled: Object.keys(o.fields).length, flattened: o.flatten };
}

/** Writes `input` to `output` with its form drawn into the pages and removed; returns how many fields it had. */
export async function flattenPdfForm(
  input: string,
  output: string,
  options: PdfRunOptions = {},
): Promise<{ fields: number }> {
  const lib = await loadPdfLib();
  const document = await openPdf(input, options);
  const form = document.getForm();
  const fields = form.getFields();
  // Appearances pdf-lib must draw (fields without one) show their current values.
  const drawn = fields
    .filter((field) => field.needsAppearancesUpdate())
    .map((field) => appearanceText(lib, field))
    .join('');
  flattenForm(lib, document, form, await appearanceFont(document, drawn, "flatten: a field value's"));
  await savePdf(document, output);
  return { fields: fields.length };
}
