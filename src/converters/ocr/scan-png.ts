/**
 * A scan as the PNG tesseract may read: a PNG as it is (its header checked), any other image
 * decoded to PNG by the image converter (sharp; its probe refuses what passes the pixel limit
 * before decoding) in the caller's work folder, then checked the same way.
 */
import { join } from 'node:path';
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionLimits } from '../../core/ports/index.js';
import { type PngHeader, readPngHeader } from './png-header.js';

export interface ScanPng extends PngHeader {
  path: string;
}

export async function scanAsPng(
  input: string,
  format: FormatName,
  run: { signal: AbortSignal; limits: ConversionLimits; workDir: string },
): Promise<ScanPng> {
  if (format === 'png') return { path: input, ...(await readPngHeader(input, run.limits.maxPixels)) };
  const png = join(run.workDir, 'scan.png');
  const { createSharpConverter } = await import('../sharp/index.js');
  await createSharpConverter().convert({
    inputPath: input,
    outputPath: png,
    from: format,
    to: 'png',
    options: {},
    tempDir: run.workDir,
    signal: run.signal,
    onProgress: () => {},
    limits: run.limits,
  });
  return { path: png, ...(await readPngHeader(png, run.limits.maxPixels)) };
}
