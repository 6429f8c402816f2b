/**
 * Plain text to PDF. The input is read line by line (a stream, never whole), each line laid out
 * and drawn at once, so memory holds the PDF being built (pdf-lib keeps it all until saved) but
 * not the input. Tabs become spaces to the next 4-column stop; a form feed starts a new page,
 * as it does on a printer.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { PDFDocument } from 'pdf-lib';
import { throwIfAborted } from '../../../../src/abort.js';
import type { PdfEngine } from './engines.js';
import { embedFonts, type FontFiles, type LayoutFonts } from './fonts.js';
import { PdfTextLayout } from './pdf-layout.js';
import { stripBom } from './text-io.js';
import type { PdfSettings } from './text-options.js';

export interface PdfJob {
  engine: PdfEngine;
  fonts: FontFiles;
  settings: PdfSettings;
  signal: AbortSignal;
  onProgress(fraction: number): void;
}

export interface OpenPdf {
  doc: PDFDocument;
  fonts: LayoutFonts;
  layout: PdfTextLayout;
}

/** A new document with its fonts embedded and a layout over its pages. */
export async function openPdf(job: PdfJob): Promise<OpenPdf> {
  const doc = await job.engine.pdfLib.PDFDocument.create();
  doc.setCreator('fileconv');
  const fonts = await embedFonts(doc, job.engine, job.fonts);
  const { width, height, margin } = job.settings;
  const layout = new PdfTextLayout(doc, { width, height, margin }, job.signal);
  return { doc, fonts, layout };
}

/** The finished document's bytes. Subsetting the fonts happens here. */
export async function savePdf(pdf: OpenPdf): Promise<Uint8Array> {
  pdf.layout.finish();
  return pdf.doc.save();
}

const TAB_STOP = 4;

/** Replaces tabs with spaces up to the next tab stop, counting columns in code points. */
export function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let column = 0;
  for (const char of line) {
    if (char === '\t') {
      const spaces = TAB_STOP - (column % TAB_STOP);
      out += ' '.repeat(spaces);
      column += spaces;
    } else {
      out += char;
      column += 1;
    }
  }
  return out;
}

/** Lays out the UTF-8 text file at `path` (`size` bytes, already checked) as a PDF. */
export async function textToPdf(path: string, size: number, job: PdfJob): Promise<Uint8Array> {
  const pdf = await openPdf(job);
  const style = {
    font: job.settings.monospace ? pdf.fonts.mono : pdf.fonts.regular,
    size: job.settings.fontSize,
  };
  const input = createReadStream(path, { encoding: 'utf8' });
  // readline splits on \n, \r\n and a lone \r alike.
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let first = true;
  let reported = 0;
  try {
    for await (const raw of lines) {
      throwIfAborted(job.signal);
      const line = first ? stripBom(raw) : raw;
      first = false;
      const pages = line.split('\f');
      for (const [index, part] of pages.entries()) {
        if (index > 0) pdf.layout.newPage();
        // A line that is only a form feed breaks the page without adding an empty line.
        if (part !== '' || pages.length === 1) await pdf.layout.paragraph(expandTabs(part), style);
      }
      const fraction = size > 0 ? input.bytesRead / size : 1;
      if (fraction - reported >= 0.01) {
        reported = fraction;
        job.onProgress(0.05 + 0.8 * fraction);
      }
    }
  } finally {
    lines.close();
    input.destroy();
  }
  throwIfAborted(job.signal);
  return savePdf(pdf);
}
