/**
 * Plain text to PDF. The input is read line by line (a stream, never whole), each line laid out
 * and drawn at once, so memory holds the PDF being built (pdf-lib keeps it all until saved) but
 * not the input. Tabs become spaces to the next 4-column stop; a form feed starts a new page,
 * as it does on a printer.
 */

import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { PDFDocument } from 'pdf-lib';
import { throwIfAborted } from '../../core/abort.js';
import type { PdfEngine } from '../../kit/libraries/documents.js';
import { decodedChunks, fileEncoding } from '../../kit/text/text-encoding.js';
import { embedFonts, type FontFiles, type LayoutFonts, missingCodePoints } from './fonts.js';
import { PdfTextLayout } from './pdf-layout.js';
import { fallbackFontFor } from './system-fonts.js';
import type { PdfSettings } from './text-options.js';

export interface PdfJob {
  engine: PdfEngine;
  fonts: FontFiles;
  settings: PdfSettings;
  signal: AbortSignal;
  onProgress(fraction: number): void;
  /** An installed font drawing what `fonts` lack, when the text needs one (withFallbackFont). */
  fallbackFont?: string | undefined;
}

/**
 * `job` with a fallback face for the characters of `texts` its fonts lack, when the machine has
 * a font that draws them (CJK text in DejaVu's place); `job` as it is otherwise.
 */
export async function withFallbackFont(
  job: PdfJob,
  texts: Iterable<string> | AsyncIterable<string>,
): Promise<PdfJob> {
  const missing = await missingCodePoints(job.engine, job.fonts, texts);
  if (missing.length === 0) return job;
  return { ...job, fallbackFont: await fallbackFontFor(job.engine, missing) };
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
  const fonts = await embedFonts(doc, job.engine, job.fonts, job.fallbackFont);
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

/**
 * Lays out the text file at `path` (`size` bytes, already checked; in whatever encoding it is,
 * text-encoding.ts) as a PDF. The file is read twice, both times as a stream: once for the
 * characters the fonts lack (to pick a fallback face before the first page), once to lay it out.
 */
export async function textToPdf(path: string, size: number, baseJob: PdfJob): Promise<Uint8Array> {
  const encoding = await fileEncoding(path);
  const job = await withFallbackFont(baseJob, decodedChunks(path, encoding));
  const pdf = await openPdf(job);
  const style = {
    font: job.settings.monospace ? pdf.fonts.mono : pdf.fonts.regular,
    size: job.settings.fontSize,
  };
  let bytesRead = 0;
  const input = Readable.from(decodedChunks(path, encoding, (read) => (bytesRead = read)));
  // readline splits on \n, \r\n and a lone \r alike.
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let reported = 0;
  try {
    for await (const line of lines) {
      throwIfAborted(job.signal);
      const pages = line.split('\f');
      for (const [index, part] of pages.entries()) {
        if (index > 0) pdf.layout.newPage();
        // A line that is only a form feed breaks the page without adding an empty line.
        if (part !== '' || pages.length === 1) await pdf.layout.paragraph(expandTabs(part), style);
      }
      const fraction = size > 0 ? bytesRead / size : 1;
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
