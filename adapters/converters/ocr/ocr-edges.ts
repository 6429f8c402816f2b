/**
 * What the OCR converter offers the conversion graph, dependency-free (see image/image-edges.ts
 * for why). Only PNG comes in: its header is checked here before tesseract decodes a pixel, and
 * every other image (jpg, tiff, webp, gif, bmp, heic...) reaches it through sharp's -> png step,
 * which applies the image converter's own probe and limits. Cost 8: reading a page is seconds of
 * CPU, several times any re-encode, so no chain detours through OCR where another way exists.
 */
import type { ConversionEdge } from '../../../src/ports.js';

export const OCR_EDGES: readonly ConversionEdge[] = [{ from: 'png', to: 'txt', cost: 8, lossy: true }];
