/**
 * The assembly's converters: every converter fileconv ships, as registrations, in order of
 * preference. Each is listed even when its engine is missing here; the engine routes around
 * unavailable ones and `fileconv doctor` says how to install them. A registration declares its
 * converter's name, edges and options without loading it, so `fileconv convert photo.jpg
 * photo.webp` starts without loading pdf.js, exceljs or the LibreOffice pool, and an API node
 * plans without any engine installed; LibreOffice starts its warm workers only on the first
 * document, Chromium its browser only on the first web page, and the engine's close() stops
 * them. The pure-JS converters (pdf, exceljs, mammoth, text, data) convert in child processes of
 * their own, under a heap cap and a work budget (their registrations load them isolated,
 * kit/isolation/isolated.ts): a hostile document costs its job, not the service.
 *
 * A new converter is one folder under src/converters/ with its registration.ts, and one line here.
 */

import { ARCHIVE_REGISTRATION } from '../converters/archive/registration.js';
import { CALIBRE_REGISTRATION } from '../converters/calibre/registration.js';
import { CHROMIUM_REGISTRATION } from '../converters/chromium/registration.js';
import { DATA_REGISTRATION } from '../converters/data/registration.js';
import { EXCELJS_REGISTRATION } from '../converters/exceljs/registration.js';
import { FFMPEG_REGISTRATION } from '../converters/ffmpeg/registration.js';
import { FONT_REGISTRATION } from '../converters/font/registration.js';
import { LIBREOFFICE_REGISTRATION } from '../converters/libreoffice/registration.js';
import { MAMMOTH_REGISTRATION } from '../converters/mammoth/registration.js';
import { OCR_REGISTRATION, withPdfTextOcrRegistration } from '../converters/ocr/registration.js';
import { PDF_REGISTRATION } from '../converters/pdf/registration.js';
import {
  FFMPEG_IMAGE_REGISTRATION,
  IMAGEMAGICK_REGISTRATION,
  LIBHEIF_REGISTRATION,
  LIBJXL_REGISTRATION,
  LIBRAW_REGISTRATION,
} from '../converters/raster/registration.js';
import { SHARP_REGISTRATION } from '../converters/sharp/registration.js';
import { SUBTITLES_REGISTRATION } from '../converters/subtitles/registration.js';
import { TEXT_REGISTRATION } from '../converters/text/registration.js';
import {
  GHOSTSCRIPT_REGISTRATION,
  PDFTOCAIRO_REGISTRATION,
  RSVG_REGISTRATION,
  SVGZ_REGISTRATION,
} from '../converters/vector/registration.js';
import type { ConverterRegistration } from '../core/ports/index.js';

/** Every converter fileconv ships, for `createConverter({ converters })` (or createEngine). */
export function defaultConverters(): ConverterRegistration[] {
  return [
    SHARP_REGISTRATION,
    // The raster formats sharp lacks, each on its command-line engine.
    IMAGEMAGICK_REGISTRATION,
    LIBJXL_REGISTRATION,
    FFMPEG_IMAGE_REGISTRATION,
    LIBRAW_REGISTRATION,
    LIBHEIF_REGISTRATION,
    FFMPEG_REGISTRATION,
    // pdf -> txt reads scanned pages by OCR (tesseract) around the isolated pdf.js converter.
    withPdfTextOcrRegistration(PDF_REGISTRATION),
    EXCELJS_REGISTRATION,
    MAMMOTH_REGISTRATION,
    TEXT_REGISTRATION,
    OCR_REGISTRATION,
    DATA_REGISTRATION,
    SUBTITLES_REGISTRATION,
    CHROMIUM_REGISTRATION,
    GHOSTSCRIPT_REGISTRATION,
    RSVG_REGISTRATION,
    PDFTOCAIRO_REGISTRATION,
    SVGZ_REGISTRATION,
    ARCHIVE_REGISTRATION,
    LIBREOFFICE_REGISTRATION,
    CALIBRE_REGISTRATION,
    FONT_REGISTRATION,
  ];
}
