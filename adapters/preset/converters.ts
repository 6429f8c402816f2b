/**
 * The CLI's assembly of core and adapters: which converters a command-line engine gets.
 * Every converter is listed even when its engine is missing here; the engine routes around
 * unavailable ones and `fileconv doctor` says how to install them. Each converter's module is
 * imported only when a conversion needs it (lazyConverter), so `fileconv convert photo.jpg
 * photo.webp` starts without loading pdf.js, exceljs or the LibreOffice pool; LibreOffice starts
 * its warm workers only on the first document, Chromium its browser only on the first web page,
 * and the engine's close() stops them. The pure-JS converters (pdf, exceljs, mammoth, text, data)
 * convert in child processes of their own, under a heap cap and a work budget
 * (converters/isolation/isolated.ts): a hostile document costs its job, not the service.
 */

import type { Converter } from '../../src/index.js';
import { ARCHIVE_EDGES } from '../converters/archive/archive-edges.js';
import { CHROMIUM_EDGES } from '../converters/browser/chromium-edges.js';
import { DATA_EDGES } from '../converters/data-formats/data-edges.js';
import { CALIBRE_EDGES } from '../converters/ebook/calibre-edges.js';
import { FONT_EDGES } from '../converters/font/font-edges.js';
import { buildImageEdges } from '../converters/image/image-edges.js';
import { isolateConverter } from '../converters/isolation/isolated.js';
import { lazyConverter } from '../converters/lazy.js';
import { buildMediaEdges } from '../converters/media/media-edges.js';
import { OCR_EDGES } from '../converters/ocr/ocr-edges.js';
import { buildEdges as buildOfficeEdges } from '../converters/office/libreoffice-filters.js';
import { PDF_EDGES } from '../converters/office/pdf/pdf-edges.js';
import { SHEET_EDGES } from '../converters/office/sheets/sheet-edges.js';
import { MAMMOTH_EDGES } from '../converters/office/text/mammoth-edges.js';
import { TEXT_EDGES } from '../converters/office/text/text-edges.js';
import {
  FFMPEG_IMAGE_EDGES,
  IMAGEMAGICK_EDGES,
  LIBHEIF_EDGES,
  LIBJXL_EDGES,
  LIBRAW_EDGES,
} from '../converters/raster/raster-edges.js';
import { SUBTITLE_EDGES } from '../converters/subtitles/subtitle-edges.js';
import {
  GHOSTSCRIPT_EDGES,
  PDFTOCAIRO_EDGES,
  RSVG_EDGES,
  SVGZ_EDGES,
} from '../converters/vector/vector-edges.js';

export function defaultConverters(): Converter[] {
  return [
    lazyConverter({
      name: 'sharp',
      edges: buildImageEdges(true),
      load: async () => (await import('../converters/sharp.js')).createSharpConverter(),
    }),
    ...rasterToolConverters(),
    lazyConverter({
      name: 'ffmpeg',
      edges: buildMediaEdges(),
      load: async () => (await import('../converters/ffmpeg.js')).createFfmpegConverter(),
    }),
    lazyConverter({
      name: 'pdf',
      edges: PDF_EDGES,
      // pdf -> txt reads scanned pages by OCR (tesseract) around the isolated pdf.js converter.
      load: async () => {
        const [{ createPdfConverter }, { withPdfTextOcr }] = await Promise.all([
          import('../converters/pdf.js'),
          import('../converters/ocr/pdf-text-ocr.js'),
        ]);
        return withPdfTextOcr(isolateConverter('pdf', createPdfConverter()));
      },
    }),
    lazyConverter({
      name: 'exceljs',
      edges: SHEET_EDGES,
      load: async () =>
        isolateConverter('exceljs', (await import('../converters/exceljs.js')).createSpreadsheetConverter()),
    }),
    lazyConverter({
      name: 'mammoth',
      edges: MAMMOTH_EDGES,
      load: async () =>
        isolateConverter('mammoth', (await import('../converters/mammoth.js')).createMammothConverter()),
    }),
    lazyConverter({
      name: 'text',
      edges: TEXT_EDGES,
      load: async () =>
        isolateConverter('text', (await import('../converters/text.js')).createTextConverter()),
    }),
    lazyConverter({
      name: 'ocr',
      edges: OCR_EDGES,
      load: async () => (await import('../converters/ocr.js')).createOcrConverter(),
    }),
    lazyConverter({
      name: 'data',
      edges: DATA_EDGES,
      load: async () =>
        isolateConverter('data', (await import('../converters/data.js')).createDataConverter()),
    }),
    lazyConverter({
      name: 'subtitles',
      edges: SUBTITLE_EDGES,
      load: async () => (await import('../converters/subtitles.js')).createSubtitleConverter(),
    }),
    lazyConverter({
      name: 'chromium',
      edges: CHROMIUM_EDGES,
      load: async () => (await import('../converters/chromium.js')).createChromiumConverter(),
    }),
    lazyConverter({
      name: 'ghostscript',
      edges: GHOSTSCRIPT_EDGES,
      load: async () => (await import('../converters/vector.js')).createGhostscriptConverter(),
    }),
    lazyConverter({
      name: 'rsvg',
      edges: RSVG_EDGES,
      load: async () => (await import('../converters/vector.js')).createRsvgConverter(),
    }),
    lazyConverter({
      name: 'pdftocairo',
      edges: PDFTOCAIRO_EDGES,
      load: async () => (await import('../converters/vector.js')).createPdftocairoConverter(),
    }),
    lazyConverter({
      name: 'svgz',
      edges: SVGZ_EDGES,
      load: async () => (await import('../converters/vector.js')).createSvgzConverter(),
    }),
    lazyConverter({
      name: 'bsdtar',
      edges: ARCHIVE_EDGES,
      load: async () => (await import('../converters/bsdtar.js')).createArchiveConverter(),
    }),
    lazyConverter({
      name: 'libreoffice',
      edges: buildOfficeEdges(),
      load: async () => (await import('../converters/libreoffice.js')).createLibreOfficeConverter(),
    }),
    lazyConverter({
      name: 'calibre',
      edges: CALIBRE_EDGES,
      load: async () => (await import('../converters/calibre.js')).createCalibreConverter(),
    }),
    lazyConverter({
      name: 'font',
      edges: FONT_EDGES,
      load: async () => (await import('../converters/fonttools.js')).createFontConverter(),
    }),
  ];
}

/** The raster formats sharp lacks, each on its command-line engine (converters/raster-tools.ts). */
function rasterToolConverters(): Converter[] {
  const tools = () => import('../converters/raster-tools.js');
  return [
    lazyConverter({
      name: 'imagemagick',
      edges: IMAGEMAGICK_EDGES,
      load: async () => (await tools()).createImageMagickConverter(),
    }),
    lazyConverter({
      name: 'libjxl',
      edges: LIBJXL_EDGES,
      load: async () => (await tools()).createLibjxlConverter(),
    }),
    lazyConverter({
      name: 'ffmpeg-image',
      edges: FFMPEG_IMAGE_EDGES,
      load: async () => (await tools()).createFfmpegImageConverter(),
    }),
    lazyConverter({
      name: 'libraw',
      edges: LIBRAW_EDGES,
      load: async () => (await tools()).createLibrawConverter(),
    }),
    lazyConverter({
      name: 'libheif',
      edges: LIBHEIF_EDGES,
      load: async () => (await tools()).createLibheifConverter(),
    }),
  ];
}
