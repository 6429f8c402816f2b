/**
 * A scan as the PNG tesseract may read: a PNG as it is (its header checked), any other image
 * decoded to PNG first by the engine's image converter (sharp: its probe refuses what passes the
 * pixel limit before decoding), asked for through `convertTo` (ConvertContext.convertTo) so this
 * folder imports no other converter, then checked the same way.
 */
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionLimits, ConvertContext } from '../../core/ports/index.js';
import { type PngHeader, readPngHeader } from './png-header.js';

export interface ScanPng extends PngHeader {
  path: string;
}

export async function scanAsPng(
  input: string,
  format: FormatName,
  run: { limits: ConversionLimits; convertTo?: ConvertContext['convertTo'] },
): Promise<ScanPng> {
  if (format === 'png') return { path: input, ...(await readPngHeader(input, run.limits.maxPixels)) };
  if (!run.convertTo) {
    throw new FileconvError(
      'ENGINE_UNAVAILABLE',
      `Reading a ${format} scan needs it decoded to PNG first, which the OCR converter asks its engine for: run it in an engine with an image converter (sharp), or give it a PNG.`,
    );
  }
  const png = await run.convertTo(input, format, 'png');
  return { path: png, ...(await readPngHeader(png, run.limits.maxPixels)) };
}
