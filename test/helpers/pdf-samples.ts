/**
 * PDFs the PDF-operation tests work on, made with pdf-lib: pages labelled with text pdftotext
 * reads back, photo-like JPEG pages for compression, a truncated copy for damage.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';

/** A PDF whose pages say `${label}1`, `${label}2`, ... */
export async function labelledPdf(dir: string, label: string, pages: number): Promise<string> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 1; index <= pages; index++) {
    doc.addPage([300, 200]).drawText(`${label}${index}`, { x: 20, y: 100, size: 14, font });
  }
  const path = join(dir, `${label}.pdf`);
  await writeFile(path, await doc.save());
  return path;
}

/**
 * A PDF of `pages` A4-landscape pages, each filled by a camera-like JPEG (`width` px wide,
 * quality 92, smooth colour fields plus grain): what people want smaller before mailing it.
 */
export async function photoPdf(dir: string, pages: number, width = 2000): Promise<string> {
  const doc = await PDFDocument.create();
  const height = Math.round((width * 3) / 4);
  for (let index = 0; index < pages; index++) {
    const seed = Buffer.alloc(20 * 15 * 3);
    for (let at = 0; at < seed.length; at++) seed[at] = (at * 73 + index * 151) % 256;
    const base = await sharp(seed, { raw: { width: 20, height: 15, channels: 3 } })
      .resize(width, height, { kernel: 'cubic' })
      .raw()
      .toBuffer();
    for (let at = 0; at < base.length; at++)
      base[at] = Math.max(0, Math.min(255, (base[at] ?? 0) + ((at * 7919) % 25) - 12));
    const jpeg = await sharp(base, { raw: { width, height, channels: 3 } })
      .jpeg({ quality: 92 })
      .toBuffer();
    const image = await doc.embedJpg(jpeg);
    const page = doc.addPage([842, 595]);
    page.drawImage(image, { x: 0, y: 0, width: 842, height: 595 });
    page.drawText(`photo${index + 1}`, { x: 30, y: 30, size: 24 });
  }
  const path = join(dir, 'photos.pdf');
  await writeFile(path, await doc.save());
  return path;
}

/** The first half of the PDF at `path`, as a download cut short leaves it. */
export async function truncatedCopy(path: string, dir: string): Promise<string> {
  const bytes = await readFile(path);
  const cut = join(dir, 'truncated.pdf');
  await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  return cut;
}

/**
 * A one-page PDF form (`form.pdf`): a text field 'name', a multiline 'notes', a checkbox
 * 'agree', a radio group 'size' (S, M, L), a dropdown 'country' (France, Spain, Peru), a list
 * 'tags' (red, green, blue; several may be chosen), a push button 'reset' and a 'code' of at most
 * 4 characters. Empty: filling it is the test's business.
 */
export async function formPdf(dir: string): Promise<string> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([500, 500]);
  const form = doc.getForm();
  form.createTextField('name').addToPage(page, { x: 20, y: 440, width: 300, height: 24 });
  const notes = form.createTextField('notes');
  notes.enableMultiline();
  notes.addToPage(page, { x: 20, y: 360, width: 300, height: 60 });
  form.createCheckBox('agree').addToPage(page, { x: 20, y: 320, width: 16, height: 16 });
  const size = form.createRadioGroup('size');
  for (const [index, option] of ['S', 'M', 'L'].entries()) {
    size.addOptionToPage(option, page, { x: 20 + 40 * index, y: 280, width: 14, height: 14 });
  }
  const country = form.createDropdown('country');
  country.addOptions(['France', 'Spain', 'Peru']);
  country.addToPage(page, { x: 20, y: 230, width: 200, height: 24 });
  const tags = form.createOptionList('tags');
  tags.addOptions(['red', 'green', 'blue']);
  tags.enableMultiselect();
  tags.addToPage(page, { x: 20, y: 140, width: 200, height: 70 });
  form.createButton('reset').addToPage('Reset', page, { x: 20, y: 90, width: 80, height: 24 });
  const code = form.createTextField('code');
  code.setMaxLength(4);
  code.addToPage(page, { x: 20, y: 40, width: 100, height: 24 });
  const path = join(dir, 'form.pdf');
  await writeFile(path, await doc.save());
  return path;
}
