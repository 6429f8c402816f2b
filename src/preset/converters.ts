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

import { ARCHIVE_EDGES } from '../converters/archive/archive-edges.js';
import { CALIBRE_EDGES } from '../converters/calibre/calibre-edges.js';
import { CHROMIUM_EDGES } from '../converters/chromium/chromium-edges.js';
import { DATA_EDGES } from '../converters/data/data-edges.js';
import { SHEET_EDGES } from '../converters/exceljs/sheet-edges.js';
import { buildMediaEdges } from '../converters/ffmpeg/media-edges.js';
import { FONT_EDGES } from '../converters/font/font-edges.js';
import { buildEdges as buildOfficeEdges } from '../converters/libreoffice/libreoffice-filters.js';
import { MAMMOTH_EDGES } from '../converters/mammoth/mammoth-edges.js';
import { OCR_EDGES } from '../converters/ocr/ocr-edges.js';
import { PDF_EDGES } from '../converters/pdf/pdf-edges.js';
import {
  FFMPEG_IMAGE_EDGES,
  IMAGEMAGICK_EDGES,
  LIBHEIF_EDGES,
  LIBJXL_EDGES,
  LIBRAW_EDGES,
} from '../converters/raster/raster-edges.js';
import { buildImageEdges } from '../converters/sharp/image-edges.js';
import { SUBTITLE_EDGES } from '../converters/subtitles/subtitle-edges.js';
import { TEXT_EDGES } from '../converters/text/text-edges.js';
import {
  GHOSTSCRIPT_EDGES,
  PDFTOCAIRO_EDGES,
  RSVG_EDGES,
  SVGZ_EDGES,
} from '../converters/vector/vector-edges.js';
import type { Converter } from '../core/ports/index.js';
import { isolateConverter } from '../kit/isolation/isolated.js';
import { lazyConverter } from '../kit/lazy.js';

export function defaultConverters(): Converter[] {
  return [
    lazyConverter({
      name: 'sharp',
      edges: buildImageEdges(true),
      load: async () => (await import('../converters/sharp/index.js')).createSharpConverter(),
    }),
    ...rasterToolConverters(),
    lazyConverter({
      name: 'ffmpeg',
      edges: buildMediaEdges(),
      load: async () => (await import('../converters/ffmpeg/index.js')).createFfmpegConverter(),
    }),
    lazyConverter({
      name: 'pdf',
      edges: PDF_EDGES,
      // pdf -> txt reads scanned pages by OCR (tesseract) around the isolated pdf.js converter.
      load: async () => {
        const [{ createPdfConverter }, { withPdfTextOcr }] = await Promise.all([
          import('../converters/pdf/index.js'),
          import('../converters/ocr/pdf-text-ocr.js'),
        ]);
        return withPdfTextOcr(isolateConverter('pdf', createPdfConverter()));
      },
    }),
    lazyConverter({
      name: 'exceljs',
      edges: SHEET_EDGES,
      load: async () =>
        isolateConverter(
          'exceljs',
          (await import('../converters/exceljs/index.js')).createSpreadsheetConverter(),
        ),
    }),
    lazyConverter({
      name: 'mammoth',
      edges: MAMMOTH_EDGES,
      load: async () =>
        isolateConverter(
          'mammoth',
          (await import('../converters/mammoth/index.js')).createMammothConverter(),
        ),
    }),
    lazyConverter({
      name: 'text',
      edges: TEXT_EDGES,
      load: async () =>
        isolateConverter('text', (await import('../converters/text/index.js')).createTextConverter()),
    }),
    lazyConverter({
      name: 'ocr',
      edges: OCR_EDGES,
      load: async () => (await import('../converters/ocr/index.js')).createOcrConverter(),
    }),
    lazyConverter({
      name: 'data',
      edges: DATA_EDGES,
      load: async () =>
        isolateConverter('data', (await import('../converters/data/index.js')).createDataConverter()),
    }),
    lazyConverter({
      name: 'subtitles',
      edges: SUBTITLE_EDGES,
      load: async () => (await import('../converters/subtitles/index.js')).createSubtitleConverter(),
    }),
    lazyConverter({
      name: 'chromium',
      edges: CHROMIUM_EDGES,
      load: async () => (await import('../converters/chromium/index.js')).createChromiumConverter(),
    }),
    lazyConverter({
      name: 'ghostscript',
      edges: GHOSTSCRIPT_EDGES,
      load: async () => (await import('../converters/vector/index.js')).createGhostscriptConverter(),
    }),
    lazyConverter({
      name: 'rsvg',
      edges: RSVG_EDGES,
      load: async () => (await import('../converters/vector/index.js')).createRsvgConverter(),
    }),
    lazyConverter({
      name: 'pdftocairo',
      edges: PDFTOCAIRO_EDGES,
      load: async () => (await import('../converters/vector/index.js')).createPdftocairoConverter(),
    }),
    lazyConverter({
      name: 'svgz',
      edges: SVGZ_EDGES,
      load: async () => (await import('../converters/vector/index.js')).createSvgzConverter(),
    }),
    lazyConverter({
      name: 'bsdtar',
      edges: ARCHIVE_EDGES,
      load: async () => (await import('../converters/archive/index.js')).createArchiveConverter(),
    }),
    lazyConverter({
      name: 'libreoffice',
      edges: buildOfficeEdges(),
      load: async () => (await import('../converters/libreoffice/index.js')).createLibreOfficeConverter(),
    }),
    lazyConverter({
      name: 'calibre',
      edges: CALIBRE_EDGES,
      load: async () => (await import('../converters/calibre/index.js')).createCalibreConverter(),
    }),
    lazyConverter({
      name: 'font',
      edges: FONT_EDGES,
      load: async () => (await import('../converters/font/index.js')).createFontConverter(),
    }),
  ];
}

/** The raster formats sharp lacks, each on its command-line engine (converters/raster-tools.ts). */
function rasterToolConverters(): Converter[] {
  const tools = () => import('../converters/raster/index.js');
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
