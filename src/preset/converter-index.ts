/**
 * The converters of `defaultConverters()` for a process that makes one conversion and exits
 * (`fileconv convert`): the same names, order and edges, but with nothing imported until the
 * engine asks for a converter. defaultConverters() imports every converter family's registration
 * (its edge tables and options schemas) to plan one jpg -> webp; here the edges come from
 * converter-edges.generated.ts (written by `npx tsx scripts/converter-index.ts`, and checked
 * against defaultConverters() by test/converter-index.test.ts), and a converter's registration
 * module is imported when it is loaded or asked whether it is available, which planning does for
 * the converters on a candidate path only.
 */
import { FileconvError } from '../core/errors.js';
import type { ConverterRegistration } from '../core/ports/index.js';
import { DECLARED_CONVERTERS } from './converter-edges.generated.js';

/** A converter as the generated index holds it: its declaration without functions. */
export interface DeclaredConverter {
  name: string;
  edges: ConverterRegistration['edges'];
  hasOptions: boolean;
  hasPackaging: boolean;
}

/** Each converter's registration, imported on first need: one line a converter of converters.ts. */
export const REGISTRATION_MODULES: Readonly<Record<string, () => Promise<ConverterRegistration>>> = {
  sharp: async () => (await import('../converters/sharp/registration.js')).SHARP_REGISTRATION,
  imagemagick: async () => (await import('../converters/raster/registration.js')).IMAGEMAGICK_REGISTRATION,
  libjxl: async () => (await import('../converters/raster/registration.js')).LIBJXL_REGISTRATION,
  'ffmpeg-image': async () =>
    (await import('../converters/raster/registration.js')).FFMPEG_IMAGE_REGISTRATION,
  libraw: async () => (await import('../converters/raster/registration.js')).LIBRAW_REGISTRATION,
  libheif: async () => (await import('../converters/raster/registration.js')).LIBHEIF_REGISTRATION,
  ffmpeg: async () => (await import('../converters/ffmpeg/registration.js')).FFMPEG_REGISTRATION,
  pdf: async () => {
    const [{ PDF_REGISTRATION }, { withPdfTextOcrRegistration }] = await Promise.all([
      import('../converters/pdf/registration.js'),
      import('../converters/ocr/registration.js'),
    ]);
    return withPdfTextOcrRegistration(PDF_REGISTRATION);
  },
  exceljs: async () => (await import('../converters/exceljs/registration.js')).EXCELJS_REGISTRATION,
  mammoth: async () => (await import('../converters/mammoth/registration.js')).MAMMOTH_REGISTRATION,
  text: async () => (await import('../converters/text/registration.js')).TEXT_REGISTRATION,
  ocr: async () => (await import('../converters/ocr/registration.js')).OCR_REGISTRATION,
  data: async () => (await import('../converters/data/registration.js')).DATA_REGISTRATION,
  subtitles: async () => (await import('../converters/subtitles/registration.js')).SUBTITLES_REGISTRATION,
  chromium: async () => (await import('../converters/chromium/registration.js')).CHROMIUM_REGISTRATION,
  ghostscript: async () => (await import('../converters/vector/registration.js')).GHOSTSCRIPT_REGISTRATION,
  rsvg: async () => (await import('../converters/vector/registration.js')).RSVG_REGISTRATION,
  pdftocairo: async () => (await import('../converters/vector/registration.js')).PDFTOCAIRO_REGISTRATION,
  svgz: async () => (await import('../converters/vector/registration.js')).SVGZ_REGISTRATION,
  bsdtar: async () => (await import('../converters/archive/registration.js')).ARCHIVE_REGISTRATION,
  libreoffice: async () =>
    (await import('../converters/libreoffice/registration.js')).LIBREOFFICE_REGISTRATION,
  calibre: async () => (await import('../converters/calibre/registration.js')).CALIBRE_REGISTRATION,
  font: async () => (await import('../converters/font/registration.js')).FONT_REGISTRATION,
};

/**
 * A registration declared from the index whose module is imported by load(). Its options
 * schema and packaging are the module's, so they answer once it is loaded: the engine validates
 * a conversion's options after planning has loaded the converters of its path (an API node,
 * which validates on declarations alone, takes defaultConverters()).
 */
function lazyRegistration(declared: DeclaredConverter): ConverterRegistration {
  const importModule = REGISTRATION_MODULES[declared.name];
  if (!importModule) throw new FileconvError('INTERNAL', `No registration module for ${declared.name}.`);
  let registration: ConverterRegistration | undefined;
  const loaded = (): ConverterRegistration => {
    if (registration) return registration;
    throw new FileconvError('INTERNAL', `The ${declared.name} converter was asked before it was loaded.`);
  };
  return {
    name: declared.name,
    edges: declared.edges,
    ...(declared.hasOptions ? { optionsSchema: (to) => loaded().optionsSchema!(to) } : {}),
    ...(declared.hasPackaging ? { packaging: (to, options) => loaded().packaging!(to, options) } : {}),
    async load() {
      registration ??= await importModule();
      return registration.load();
    },
  };
}

/** defaultConverters(), declared from the generated index and imported one converter at a time. */
export function lazyDefaultConverters(): ConverterRegistration[] {
  return DECLARED_CONVERTERS.map(lazyRegistration);
}
