/**
 * Reading a PDF's form (AcroForm) on pdf-lib: every field with its name, type, value and choices,
 * as `fileconv pdf form-fields` prints them and the 'form-fields' operation writes them (a JSON
 * file: a job's result is a file, and this shape is what fill-form's `fields` takes back). XFA
 * forms are not read (pdf-lib drops their XFA part; the AcroForm beside it, if any, is listed).
 */
import { rm, writeFile } from 'node:fs/promises';
import type { PDFField, PDFForm } from 'pdf-lib';
import type { PdfLibModule } from '../../kit/libraries/pdf.js';
import { loadPdfLib } from '../../kit/libraries/pdf.js';
import { outputFileError } from '../../kit/local-files.js';
import { partialBeside, placeFile } from '../../kit/place-file.js';
import { openPdf, type PdfRunOptions } from './pdf-document.js';

/** The kinds of form field, as listed and as fill-form checks values against. */
export const PDF_FIELD_TYPES = [
  'text',
  'checkbox',
  'radio',
  'dropdown',
  'list',
  'button',
  'signature',
] as const;
export type PdfFieldType = (typeof PDF_FIELD_TYPES)[number];

/** A value a field holds or is given: text, a checkbox's state, the choices selected. */
export type PdfFieldValue = string | boolean | string[] | null;

/** One field of a PDF form. */
export interface PdfFormField {
  /** The fully qualified name ('address.city'), as fill-form's `fields` names it. */
  name: string;
  type: PdfFieldType;
  /**
   * text and radio: the text or the option chosen, or null; checkbox: whether it is checked;
   * dropdown: the option chosen or null (an array when it allows several); list: the options
   * chosen; button and signature: null (they hold no value to fill).
   */
  value: PdfFieldValue;
  /** radio, dropdown and list: the options offered. */
  options?: string[];
  /** dropdown and list: whether several options may be chosen. */
  multiSelect?: boolean;
  /** dropdown: whether text other than the options is accepted. */
  editable?: boolean;
  /** text: the most characters it takes. */
  maxLength?: number;
  /** text: whether it takes line breaks. */
  multiline?: boolean;
  readOnly: boolean;
  required: boolean;
}

/**
 * A field's type. pdf-lib is loaded from its bundle (kit/libraries/pdf.ts), so its classes are
 * the ones `lib` holds: `instanceof` against a statically imported class would never match.
 */
export function fieldType(lib: PdfLibModule, field: PDFField): PdfFieldType {
  if (field instanceof lib.PDFTextField) return 'text';
  if (field instanceof lib.PDFCheckBox) return 'checkbox';
  if (field instanceof lib.PDFRadioGroup) return 'radio';
  if (field instanceof lib.PDFDropdown) return 'dropdown';
  if (field instanceof lib.PDFOptionList) return 'list';
  if (field instanceof lib.PDFSignature) return 'signature';
  return 'button';
}

/** A field as listed: its type, value and what it accepts. */
export function describeField(lib: PdfLibModule, field: PDFField): PdfFormField {
  const base = { name: field.getName(), readOnly: field.isReadOnly(), required: field.isRequired() };
  if (field instanceof lib.PDFTextField) {
    const maxLength = field.getMaxLength();
    return {
      ...base,
      type: 'text',
      value: field.getText() ?? null,
      multiline: field.isMultiline(),
      ...(maxLength === undefined ? {} : { maxLength }),
    };
  }
  if (field instanceof lib.PDFCheckBox) return { ...base, type: 'checkbox', value: field.isChecked() };
  if (field instanceof lib.PDFRadioGroup) {
    return { ...base, type: 'radio', value: field.getSelected() ?? null, options: field.getOptions() };
  }
  if (field instanceof lib.PDFDropdown) {
    const multiSelect = field.isMultiselect();
    const selected = field.getSelected();
    return {
      ...base,
      type: 'dropdown',
      value: multiSelect ? selected : (selected[0] ?? null),
      options: field.getOptions(),
      multiSelect,
      editable: field.isEditable(),
    };
  }
  if (field instanceof lib.PDFOptionList) {
    return {
      ...base,
      type: 'list',
      value: field.getSelected(),
      options: field.getOptions(),
      multiSelect: field.isMultiselect(),
    };
  }
  return { ...base, type: fieldType(lib, field), value: null };
}

/** The fields of `form`, in the order the form lists them. */
export function listFields(lib: PdfLibModule, form: PDFForm): PdfFormField[] {
  return form.getFields().map((field) => describeField(lib, field));
}

/** The form fields of the PDF at `input` (none for a PDF without a form). */
export async function readPdfFormFields(input: string, options: PdfRunOptions = {}): Promise<PdfFormField[]> {
  const lib = await loadPdfLib();
  const document = await openPdf(input, options);
  return listFields(lib, document.getForm());
}

/** What the form-fields operation writes: `{ "fields": [...] }`, room left for more beside them. */
export interface PdfFormFieldsFile {
  fields: PdfFormField[];
}

/** Writes the form fields of `input` to `output` as JSON (PdfFormFieldsFile); returns them. */
export async function writePdfFormFields(
  input: string,
  output: string,
  options: PdfRunOptions = {},
): Promise<PdfFormFieldsFile> {
  const listed: PdfFormFieldsFile = { fields: await readPdfFormFields(input, options) };
  const scratch = partialBeside(output);
  try {
    await writeFile(scratch, `${JSON.stringify(listed, null, 2)}\n`);
    await placeFile(scratch, output);
  } catch (error) {
    await rm(scratch, { force: true });
    throw outputFileError(output, error);
  }
  return listed;
}
