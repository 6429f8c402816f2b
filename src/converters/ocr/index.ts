/**
 * The OCR converter: the text of a scanned image (png, jpg, tiff, webp, gif, bmp, avif -> txt;
 * other images reach it through png) read by Debian's tesseract (Apache-2.0; `apt-get install tesseract-ocr tesseract-ocr-eng`,
 * and tesseract-ocr-<lang> per language). Options: the languages (checked against what is
 * installed: an unknown one is INVALID_OPTIONS naming its package) and the page segmentation
 * mode. Tesseract only ever reads a PNG whose header was checked (pixel limit, and that it is a
 * PNG at all); other formats are decoded to PNG first by the engine's image converter (asked for
 * through ctx.convertTo); a damaged image is CORRUPT_INPUT; the output appears only when complete.
 *
 * The searchable PDF (an image or a scanned PDF with a text layer under the picture) is the
 * 'ocr' document operation (`ocrOperations()` of fileconv/operations/ocr), and pdf -> txt reads scanned pages when the PDF
 * converter is wrapped with `withPdfTextOcr` (the preset does both).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { throwIfAborted } from '../../core/abort.js';
import type { Availability, Converter, ConvertResult } from '../../core/ports/index.js';
import { workBudgetError } from '../../core/work-limits.js';
import { toolsAvailability } from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { withWorkDir } from '../../kit/work-dir.js';
import { OCR_EDGES } from './ocr-edges.js';
import type { OcrImageOptions } from './ocr-options.js';
import { readImageText } from './read-image.js';
import { OCR } from './registration.js';
import { scanAsPng } from './scan-png.js';
import { assertLanguages } from './tesseract.js';

export { OCR_SOURCES } from './ocr-edges.js';
export {
  OCR_DEFAULTS,
  type OcrImageOptions,
  type OcrOperationOptions,
  ocrImageOptionsSchema,
  ocrOperationOptionsSchema,
  type PdfTextOcrOptions,
  pdfTextOcrOptionsSchema,
} from './ocr-options.js';
export { withPdfTextOcr } from './pdf-text-ocr.js';
export { OCR_REGISTRATION, withPdfTextOcrRegistration } from './registration.js';
export { type SearchablePdfResult, searchablePdf, searchablePdfFromImage } from './searchable-pdf.js';

export function createOcrConverter(): Converter<OcrImageOptions> {
  const guard = edgeGuard('ocr', OCR_EDGES);
  return {
    ...OCR,

    available(): Promise<Availability> {
      return toolsAvailability(['tesseract']);
    },

    async convert(ctx): Promise<ConvertResult | undefined> {
      guard(ctx.from, ctx.to);
      const { options } = ctx;
      throwIfAborted(ctx.signal);
      ctx.onProgress(0);
      await assertLanguages(options.languages, ctx.signal);
      await withWorkDir({ tempDir: ctx.tempDir }, async (workDir) => {
        const scan = await scanAsPng(ctx.inputPath, ctx.from, ctx);
        const pixels = scan.width * scan.height;
        const budget = ctx.limits.maxWorkPixels;
        if (budget !== undefined && pixels > budget) {
          throw workBudgetError(
            'maxWorkPixels',
            `The image is ${scan.width}x${scan.height} pixels`,
            pixels,
            budget,
          );
        }
        const text = await readImageText(scan.path, {
          ...options,
          signal: ctx.signal,
          workDir,
          name: 'the image',
        });
        const scratch = join(workDir, 'result.txt');
        await writeFile(scratch, text ? `${text}\n` : '');
        throwIfAborted(ctx.signal);
        await placeFile(scratch, ctx.outputPath);
      });
      ctx.onProgress(1);
      return undefined;
    },
  };
}
