/**
 * The CLI's assembly of core and adapters: which converters a command-line engine gets.
 * Every converter is listed even when its engine is missing here; the engine routes around
 * unavailable ones and `fileconv doctor` says how to install them. LibreOffice starts its warm
 * workers only on the first document, and the engine's close() stops them.
 */
import { createSpreadsheetConverter } from '../adapters/converters/exceljs.js';
import { createFfmpegConverter } from '../adapters/converters/ffmpeg.js';
import { createLibreOfficeConverter } from '../adapters/converters/libreoffice.js';
import { createMammothConverter } from '../adapters/converters/mammoth.js';
import { createPdfConverter } from '../adapters/converters/pdf.js';
import { createSharpConverter } from '../adapters/converters/sharp.js';
import { createTextConverter } from '../adapters/converters/text.js';
import type { Converter } from '../src/index.js';

export function defaultConverters(): Converter[] {
  return [
    createSharpConverter(),
    createFfmpegConverter(),
    createPdfConverter(),
    createSpreadsheetConverter(),
    createMammothConverter(),
    createTextConverter(),
    createLibreOfficeConverter(),
  ];
}
