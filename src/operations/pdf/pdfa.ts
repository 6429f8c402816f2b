/**
 * PDF/A (archival PDF) through Ghostscript's pdfwrite: -dPDFA=1|2|3 with an sRGB output intent
 * (the ICC profile Ghostscript ships), every font embedded, colours converted to RGB. Ghostscript
 * is told to leave out what the level cannot hold (PDFACompatibilityPolicy=1) rather than quietly
 * fall back to a plain PDF; and because its exit code is 0 even when it gives up on PDF/A, the
 * result is read back: the XMP must claim the level asked for and every page must be there.
 *
 * One thing policy 1 leaves out silently is transparency under PDF/A-1 (measured: a half-opaque
 * text vanished from the page), so a PDF using transparency is refused for 1b, naming 2b and 3b,
 * which allow it. Ghostscript also drops the document information it cannot map to XMP.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PDFDocument, PDFDict as PdfDict } from 'pdf-lib';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { PDFA_LEVELS, type PdfaLevel } from '../../core/pdfa-levels.js';
import { loadPdfLib } from '../../kit/libraries/pdf.js';
import { type WorkDirOptions, withWorkDir } from '../../kit/work-dir.js';
import { parseOperationOptions } from './operation-options.js';
import { openPdf, type PdfRunOptions, placeFile } from './pdf-document.js';
import { type PdfToolRunOptions, runPdfTool, stderrTail, toolFailed } from './pdf-tools.js';
import { findSrgbProfile } from './srgb-profile.js';

export { PDFA_LEVELS, type PdfaLevel };

export const pdfaOptionsSchema = z.strictObject({
  /** PDF/A part and conformance: '1b' (PDF 1.4, no transparency), '2b' or '3b' (PDF 1.7). Default '2b'. */
  level: z
    .enum(PDFA_LEVELS)
    .default('2b')
    .describe(
      "PDF/A part and conformance: '1b' (PDF 1.4, no transparency), '2b' or '3b' (PDF 1.7). Default '2b'.",
    ),
});

export type PdfaOptions = z.input<typeof pdfaOptionsSchema> &
  PdfRunOptions &
  PdfToolRunOptions &
  WorkDirOptions;

/** A PostScript string literal of `text` (paths may hold parentheses and backslashes). */
function postScriptString(text: string): string {
  return `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;
}

/** The prologue that gives the PDF its output intent: the sRGB profile at `iccPath`. */
function pdfaDefinition(iccPath: string): string {
  return [
    '%!',
    '[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark',
    '[{icc_PDFA} << /N 3 >> /PUT pdfmark',
    `[{icc_PDFA} ${postScriptString(iccPath)} (r) file /PUT pdfmark`,
    '[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark',
    '[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA}',
    '  /OutputConditionIdentifier (sRGB IEC61966-2.1) /Info (sRGB IEC61966-2.1) >> /PUT pdfmark',
    '[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark',
    '',
  ].join('\n');
}

/**
 * Whether anything in `doc` is see-through: an alpha below 1, a soft mask, a transparency group.
 * Direct dictionaries count too (pdf-lib puts a page's graphics states inline in its resources).
 */
async function usesTransparency(doc: PDFDocument): Promise<boolean> {
  const { PDFArray, PDFDict, PDFName, PDFNumber, PDFRawStream } = await loadPdfLib();
  const none = PDFName.of('None');
  const transparency = PDFName.of('Transparency');
  const seeThrough = (dict: PdfDict): boolean => {
    for (const key of ['CA', 'ca']) {
      const value = dict.get(PDFName.of(key));
      if (value instanceof PDFNumber && value.asNumber() < 1) return true;
    }
    const mask = dict.get(PDFName.of('SMask'));
    return (mask !== undefined && mask !== none) || dict.get(PDFName.of('S')) === transparency;
  };
  const visit = (value: unknown, depth: number): boolean => {
    if (depth > 32) return false;
    const dict = value instanceof PDFRawStream ? value.dict : value instanceof PDFDict ? value : undefined;
    if (dict) return seeThrough(dict) || dict.values().some((child) => visit(child, depth + 1));
    if (value instanceof PDFArray) return value.asArray().some((child) => visit(child, depth + 1));
    return false;
  };
  return doc.context.enumerateIndirectObjects().some(([, object]) => visit(object, 0));
}

/**
 * Ghostscript 10.0 drops document information written as UTF-16 (as pdf-lib and LibreOffice
 * write it) from PDF/A ("cannot be represented in XMP"), even plain ASCII titles. Rewritten as
 * literal strings, ASCII values survive; others would be dropped anyway, and are. Returns
 * whether anything changed (then the document is saved to a copy Ghostscript reads instead).
 */
async function asciiDocumentInfo(doc: PDFDocument): Promise<boolean> {
  const { PDFDict, PDFHexString, PDFString } = await loadPdfLib();
  const info = doc.context.lookup(doc.context.trailerInfo.Info);
  if (!(info instanceof PDFDict)) return false;
  let changed = false;
  for (const [key, value] of info.entries()) {
    if (!(value instanceof PDFHexString)) continue;
    const text = value.decodeText();
    // PDFString.of writes its argument between parentheses as it is: escaping is ours to do.
    if (/^[\x20-\x7e]*$/.test(text)) info.set(key, PDFString.of(text.replace(/[\\()]/g, '\\$&')));
    else info.delete(key);
    changed = true;
  }
  return changed;
}

/** The PDF/A part the XMP packet of `bytes` claims, if any (Ghostscript writes it uncompressed). */
export function claimedPdfaPart(bytes: Buffer): string | undefined {
  const text = bytes.toString('latin1');
  return /pdfaid:part(?:=['"](\d)['"]|>(\d)<)/.exec(text)?.slice(1).find(Boolean);
}

/** Writes `input` as PDF/A at `options.level` to `output`. */
export async function convertToPdfA(
  input: string,
  output: string,
  options: PdfaOptions = {},
): Promise<{ pages: number; level: PdfaLevel }> {
  const { level } = parseOperationOptions('pdfa', pdfaOptionsSchema, options);
  const signal = options.signal ?? new AbortController().signal;
  const source = await openPdf(input, options);
  const pages = source.getPageCount();
  if (level === '1b' && (await usesTransparency(source))) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `${input} uses transparency, which PDF/A-1 does not allow (Ghostscript would drop it from the page): choose level 2b or 3b.`,
      { details: { level, reason: 'transparency' } },
    );
  }
  const part = level.slice(0, 1);
  const profile = await findSrgbProfile();
  return withWorkDir(options, async (dir) => {
    const icc = join(dir, 'srgb.icc');
    await copyFile(profile, icc);
    const definition = join(dir, 'PDFA_def.ps');
    await writeFile(definition, pdfaDefinition(icc));
    let ghostscriptInput = resolve(input);
    if (await asciiDocumentInfo(source)) {
      ghostscriptInput = join(dir, 'input.pdf');
      await writeFile(ghostscriptInput, await source.save({ useObjectStreams: false }));
    }
    const converted = join(dir, 'pdfa.pdf');
    const args = [
      '-q',
      '-dSAFER',
      '-dBATCH',
      '-dNOPAUSE',
      '-sDEVICE=pdfwrite',
      `-dPDFA=${part}`,
      '-dPDFACompatibilityPolicy=1',
      `-dCompatibilityLevel=${part === '1' ? '1.4' : '1.7'}`,
      '-sColorConversionStrategy=RGB',
      '-sProcessColorModel=DeviceRGB',
      '-dEmbedAllFonts=true',
      // The prologue opens the ICC profile; -dSAFER allows reading only what is named here.
      `--permit-file-read=${dir}/`,
      `-sOutputFile=${converted.replaceAll('%', '%%')}`,
      definition,
      '-f',
      ghostscriptInput,
    ];
    const names = { [resolve(input)]: input, [join(dir, 'input.pdf')]: input, [dir]: '<work>' };
    const run = await runPdfTool('gs', args, { ...options, signal, names });
    if (run.code !== 0) throw toolFailed('gs', run, 'writing PDF/A');
    throwIfAborted(signal);
    const bytes = await readFile(converted);
    const claimed = claimedPdfaPart(bytes);
    const written = await openPdf(converted, { maxInputBytes: Number.MAX_SAFE_INTEGER });
    if (claimed !== part || written.getPageCount() !== pages) {
      const tail = stderrTail(run.stderr);
      throw new FileconvError(
        'CONVERSION_FAILED',
        `Ghostscript did not produce PDF/A-${level} (it claims ${claimed ? `part ${claimed}` : 'no PDF/A part'}, ${written.getPageCount()} of ${pages} page(s))${tail ? `: ${tail}` : ''}`,
        { details: { level, claimedPart: claimed, stderr: tail } },
      );
    }
    await placeFile(converted, output);
    return { pages, level };
  });
}
