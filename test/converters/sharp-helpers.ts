/** Shared pieces of the sharp converter tests: a per-test workspace, a context builder, output checks. */

import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { parseBmp } from '../../src/converters/sharp/bmp-header.js';
import { readIcoEntries } from '../../src/converters/sharp/ico.js';
import { workspace as sharedWorkspace } from './converter-harness.js';

export {
  type ContextOverrides,
  context,
  expectCode,
  expectNoLeftovers,
  FIXTURES,
  fixture,
  MAX_PIXELS,
  type Workspace,
} from './converter-harness.js';

/** A fresh workspace for a sharp test. */
export const workspace = () => sharedWorkspace('fileconv-sharp-');

export interface OutputDescription {
  /** sharp's format name, or 'bmp' / 'ico' (which sharp cannot read). */
  format: string | undefined;
  compression?: string | undefined;
  width: number | undefined;
  height: number | undefined;
  pages: number;
  /** BMP: bits per pixel. */
  bitsPerPixel?: number;
  /** ICO: each entry as 'WxH kind', in file order. */
  entries?: string[];
}

/** Decodes an output file's headers: ICO by its largest entry, BMP and the rest by their header. */
export async function describeOutput(path: string): Promise<OutputDescription> {
  const bytes = await readFile(path);
  if (bytes.toString('latin1', 0, 2) === 'BM') {
    const layout = parseBmp(bytes);
    const { width, height, bitsPerPixel } = layout;
    return { format: 'bmp', width, height, pages: 1, bitsPerPixel };
  }
  if (bytes.readUInt32BE(0) === 0x00000100) {
    const entries = readIcoEntries(bytes);
    const largest = entries.reduce((a, b) => (b.width > a.width ? b : a));
    return {
      format: 'ico',
      width: largest.width,
      height: largest.height,
      pages: 1,
      entries: entries.map((e) => `${e.width}x${e.height} ${e.kind}`),
    };
  }
  const meta = await sharp(bytes, { animated: true }).metadata();
  return {
    format: meta.format,
    compression: meta.compression,
    width: meta.width,
    height: meta.pageHeight ?? meta.height,
    pages: meta.pages ?? 1,
  };
}
