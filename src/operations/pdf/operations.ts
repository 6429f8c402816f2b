/**
 * PDF operations on whole documents: merge several PDFs in order, split out page ranges, rotate
 * pages through qpdf when it is installed (qpdf-pages.ts), else on pdf-lib (an optional peer:
 * `npm install pdfjs-dist pdf-lib`), with the same results; document information on pdf-lib. Each reads its
 * inputs (bounded by `maxInputBytes`), refuses what is not a readable, unencrypted PDF with a
 * stable code, and writes its output through a temp file moved into place only when complete.
 */
import { FileconvError } from '../../core/errors.js';
import { parsePageRanges } from '../../core/page-ranges.js';
import { workBudgetError } from '../../core/work-limits.js';
import { loadPdfLib } from '../../kit/libraries/pdf.js';
import { openPdf, type PdfOperationOptions, savePdf } from './pdf-document.js';
import { findPdfTool } from './pdf-tools.js';
import { type QpdfPageOptions, qpdfExtract, qpdfMerge, qpdfRotate } from './qpdf-pages.js';

export type { PdfOperationOptions };

/** What merge, split and rotate take: the limits, and the signal and work folder qpdf runs with. */
export type PdfPageOperationOptions = PdfOperationOptions & QpdfPageOptions;

/** Writes `inputs` (in order) into one PDF at `output`; returns its page count. */
export async function mergePdfs(
  inputs: readonly string[],
  output: string,
  options: PdfPageOperationOptions = {},
): Promise<{ pages: number }> {
  if (inputs.length < 2) throw new FileconvError('INVALID_OPTIONS', 'Merging needs at least two PDFs.');
  if (await findPdfTool('qpdf')) return qpdfMerge(inputs, output, options);
  const { PDFDocument } = await loadPdfLib();
  const merged = await PDFDocument.create();
  for (const input of inputs) {
    const source = await openPdf(input, options);
    const pages = await merged.copyPages(source, source.getPageIndices());
    for (const page of pages) merged.addPage(page);
    // The budget bounds the pages written too: fifty PDFs under it each can make one far over it.
    const total = merged.getPageCount();
    if (options.maxPages !== undefined && total > options.maxPages) {
      throw workBudgetError('maxDocumentPages', `The merged PDF has ${total} pages`, total, options.maxPages);
    }
  }
  await savePdf(merged, output);
  return { pages: merged.getPageCount() };
}

/** Writes the pages `ranges` selects ("2-3,5", "7-", "all") from `input` into `output`. */
export async function extractPages(
  input: string,
  ranges: string,
  output: string,
  options: PdfPageOperationOptions = {},
): Promise<{ pages: number }> {
  if (await findPdfTool('qpdf')) return qpdfExtract(input, ranges, output, options);
  const { PDFDocument } = await loadPdfLib();
  const source = await openPdf(input, options);
  const selected = parsePageRanges(ranges, source.getPageCount());
  const extracted = await PDFDocument.create();
  for (const page of await extracted.copyPages(source, selected)) extracted.addPage(page);
  await savePdf(extracted, output);
  return { pages: extracted.getPageCount() };
}

/** Rotates the pages `ranges` selects (default all) by `angle` (a multiple of 90, clockwise). */
export async function rotatePages(
  input: string,
  angle: number,
  output: string,
  options: PdfPageOperationOptions & { pages?: string } = {},
): Promise<{ pages: number }> {
  if (!Number.isInteger(angle) || angle % 90 !== 0) {
    throw new FileconvError('INVALID_OPTIONS', `A rotation is a multiple of 90 degrees, not ${angle}.`);
  }
  if (await findPdfTool('qpdf')) return qpdfRotate(input, angle, options.pages ?? 'all', output, options);
  const { degrees } = await loadPdfLib();
  const document = await openPdf(input, options);
  const selected = parsePageRanges(options.pages ?? 'all', document.getPageCount());
  for (const index of selected) {
    const page = document.getPage(index);
    page.setRotation(degrees((((page.getRotation().angle + angle) % 360) + 360) % 360));
  }
  await savePdf(document, output);
  return { pages: document.getPageCount() };
}

/** A PDF's document information, as viewers show it. */
export interface PdfMetadata {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string[];
  creator?: string;
  producer?: string;
  pages?: number;
}

/** Reads the document information and page count of the PDF at `input`. */
export async function readPdfMetadata(
  input: string,
  options: PdfOperationOptions = {},
): Promise<PdfMetadata> {
  const document = await openPdf(input, options);
  const keywords = document.getKeywords();
  const found: PdfMetadata = {
    title: document.getTitle(),
    author: document.getAuthor(),
    subject: document.getSubject(),
    keywords: keywords ? keywords.split(/\s*[,;]\s*|\s+/).filter(Boolean) : undefined,
    creator: document.getCreator(),
    producer: document.getProducer(),
    pages: document.getPageCount(),
  };
  return Object.fromEntries(Object.entries(found).filter(([, value]) => value !== undefined)) as PdfMetadata;
}

/** Writes `input` to `output` with the given fields of its document information set. */
export async function writePdfMetadata(
  input: string,
  metadata: Omit<PdfMetadata, 'pages' | 'producer'>,
  output: string,
  options: PdfOperationOptions = {},
): Promise<PdfMetadata> {
  const document = await openPdf(input, options);
  if (metadata.title !== undefined) document.setTitle(metadata.title);
  if (metadata.author !== undefined) document.setAuthor(metadata.author);
  if (metadata.subject !== undefined) document.setSubject(metadata.subject);
  if (metadata.keywords !== undefined) document.setKeywords(metadata.keywords);
  if (metadata.creator !== undefined) document.setCreator(metadata.creator);
  await savePdf(document, output);
  return readPdfMetadata(output, options);
}
