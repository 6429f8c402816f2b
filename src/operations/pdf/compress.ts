/**
 * Making a PDF smaller by recompressing its images: Ghostscript's pdfwrite re-encodes every colour
 * and grey image as JPEG at the chosen quality and downsamples any above the chosen resolution.
 * Measured against qpdf (/work/notes/pdfops.md): qpdf cannot set a JPEG quality or downsample, and
 * leaves JPEG photos as they are (a 20 MB photo PDF came out 23 bytes larger), while Ghostscript
 * took it to 0.8 MB at quality 60 and 150 dpi in about a second. Bilevel (1-bit) images, scanned
 * text, keep their resolution: downsampled they become unreadable. The result is never larger
 * than the input: when recompressing does not help, the input is copied and the result says so.
 */
import { copyFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { throwIfAborted } from '../../core/abort.js';
import { type WorkDirOptions, withWorkDir } from '../../kit/work-dir.js';
import { parseOperationOptions } from './operation-options.js';
import { openPdf, type PdfRunOptions, placeFile } from './pdf-document.js';
import { type PdfToolRunOptions, runPdfTool, toolFailed } from './pdf-tools.js';

export const COMPRESS_DEFAULTS = { quality: 70, resolution: 150 } as const;

export const compressOptionsSchema = z.strictObject({
  /** JPEG quality of the recompressed images, 1 (smallest) to 100 (best). Default 70. */
  quality: z
    .int()
    .min(1)
    .max(100)
    .default(COMPRESS_DEFAULTS.quality)
    .describe(
      `JPEG quality of the recompressed images, 1 (smallest) to 100 (best). Default ${COMPRESS_DEFAULTS.quality}.`,
    ),
  /** Largest image resolution kept, dots per inch of page; sharper images are downsampled. Default 150. */
  resolution: z
    .int()
    .min(36)
    .max(1200)
    .default(COMPRESS_DEFAULTS.resolution)
    .describe(
      `Largest image resolution kept, in dots per inch of page; sharper images are downsampled. Default ${COMPRESS_DEFAULTS.resolution}.`,
    ),
});

export type CompressOptions = z.input<typeof compressOptionsSchema> &
  PdfRunOptions &
  PdfToolRunOptions &
  WorkDirOptions;

export interface CompressResult {
  pages: number;
  inputBytes: number;
  outputBytes: number;
  savedBytes: number;
  /** True when recompressing did not make the file smaller, so the output is a copy of the input. */
  keptOriginal: boolean;
}

/**
 * Ghostscript's QFactor for a JPEG quality: Ghostscript scales libjpeg's tables linearly by
 * QFactor x 100 percent, and libjpeg's quality q means 5000/q percent below 50, 200 - 2q above.
 */
export function qFactorOf(quality: number): number {
  const percent = quality < 50 ? 5000 / quality : 200 - 2 * quality;
  return Math.max(percent, 1) / 100;
}

/**
 * pdfwrite's image settings. The JPEG dictionaries are set again at the start of every page: with
 * Ghostscript 10's PDF interpreter, dictionaries set once before the input apply to the first page
 * only (measured: page 1 at quality 20, the rest at the default 55).
 */
function ghostscriptArgs(input: string, output: string, quality: number, resolution: number): string[] {
  const q = qFactorOf(quality).toFixed(3);
  const colour = `/QFactor ${q} /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2]`;
  const grey = `/QFactor ${q} /Blend 1 /HSamples [1 1 1 1] /VSamples [1 1 1 1]`;
  const dicts = `/ColorImageDict << ${colour} >> /ColorACSImageDict << ${colour} >> /GrayImageDict << ${grey} >> /GrayACSImageDict << ${grey} >>`;
  return [
    '-q',
    '-dSAFER',
    '-dBATCH',
    '-dNOPAUSE',
    '-sDEVICE=pdfwrite',
    '-dCompatibilityLevel=1.7',
    '-dDownsampleColorImages=true',
    '-dDownsampleGrayImages=true',
    '-dDownsampleMonoImages=false',
    `-dColorImageResolution=${resolution}`,
    `-dGrayImageResolution=${resolution}`,
    // 1.0: any image above the resolution is downsampled (the default 1.5 keeps up to 225 dpi at 150).
    '-dColorImageDownsampleThreshold=1.0',
    '-dGrayImageDownsampleThreshold=1.0',
    '-dColorImageDownsampleType=/Bicubic',
    '-dGrayImageDownsampleType=/Bicubic',
    // Otherwise JPEG images below the resolution are copied as they are, at their old quality.
    '-dPassThroughJPEGImages=false',
    '-dPassThroughJPXImages=false',
    // '%' in an output name is a page-number template to Ghostscript.
    `-sOutputFile=${output.replaceAll('%', '%%')}`,
    '-c',
    `<< /BeginPage { pop << ${dicts} >> setdistillerparams } >> setpagedevice`,
    '-f',
    input,
  ];
}

/** Writes `input` with its images recompressed to `output`; never larger than `input`. */
export async function compressPdf(
  input: string,
  output: string,
  options: CompressOptions = {},
): Promise<CompressResult> {
  const { quality, resolution } = parseOperationOptions('compress', compressOptionsSchema, options);
  const signal = options.signal ?? new AbortController().signal;
  const source = await openPdf(input, options);
  const pages = source.getPageCount();
  const inputBytes = (await stat(input)).size;
  return withWorkDir(options, async (dir) => {
    const compressed = join(dir, 'compressed.pdf');
    const names = { [resolve(input)]: input, [compressed]: output };
    const args = ghostscriptArgs(resolve(input), compressed, quality, resolution);
    const run = await runPdfTool('gs', args, { ...options, signal, names });
    if (run.code !== 0) throw toolFailed('gs', run, 'compressing the PDF');
    throwIfAborted(signal);
    // Ghostscript repairs what it can read; a result missing pages is not the document asked for.
    const written = await openPdf(compressed, { maxInputBytes: Number.MAX_SAFE_INTEGER });
    if (written.getPageCount() !== pages) {
      throw toolFailed(
        'gs',
        { ...run, code: 0 },
        `to keep every page (${written.getPageCount()} of ${pages})`,
      );
    }
    const outputBytes = (await stat(compressed)).size;
    if (outputBytes >= inputBytes) {
      const copy = join(dir, 'original.pdf');
      await copyFile(input, copy);
      await placeFile(copy, output);
      return { pages, inputBytes, outputBytes: inputBytes, savedBytes: 0, keptOriginal: true };
    }
    await placeFile(compressed, output);
    return { pages, inputBytes, outputBytes, savedBytes: inputBytes - outputBytes, keptOriginal: false };
  });
}
