/**
 * The raster converters on command-line tools (ImageMagick, libjxl, ffmpeg's image codecs, LibRaw,
 * libheif) as an engine is given them: their names, edges and options, declared without loading
 * anything, and `load`, which makes each.
 */
import type { ConverterDeclaration, ConverterRegistration } from '../../core/ports/index.js';
import {
  FFMPEG_IMAGE_EDGES,
  IMAGEMAGICK_EDGES,
  LIBHEIF_EDGES,
  LIBJXL_EDGES,
  LIBRAW_EDGES,
} from './raster-edges.js';
import {
  HEIC_OPTIONS,
  JP2_OPTIONS,
  JXL_OPTIONS,
  NO_RASTER_OPTIONS,
  type RasterOptions,
} from './raster-options.js';

/** What createImageMagickConverter() is. */
export const IMAGEMAGICK: ConverterDeclaration<RasterOptions> = {
  name: 'imagemagick',
  edges: IMAGEMAGICK_EDGES,
  optionsSchema: (to) => (to === 'jp2' ? JP2_OPTIONS : NO_RASTER_OPTIONS),
};

/** What createLibjxlConverter() is. */
export const LIBJXL: ConverterDeclaration<RasterOptions> = {
  name: 'libjxl',
  edges: LIBJXL_EDGES,
  optionsSchema: (to) => (to === 'jxl' ? JXL_OPTIONS : NO_RASTER_OPTIONS),
};

/** What createFfmpegImageConverter() is. */
export const FFMPEG_IMAGE: ConverterDeclaration<RasterOptions> = {
  name: 'ffmpeg-image',
  edges: FFMPEG_IMAGE_EDGES,
  optionsSchema: () => NO_RASTER_OPTIONS,
};

/** What createLibrawConverter() is. */
export const LIBRAW: ConverterDeclaration<RasterOptions> = {
  name: 'libraw',
  edges: LIBRAW_EDGES,
  optionsSchema: () => NO_RASTER_OPTIONS,
};

/** What createLibheifConverter() is. */
export const LIBHEIF: ConverterDeclaration<RasterOptions> = {
  name: 'libheif',
  edges: LIBHEIF_EDGES,
  optionsSchema: () => HEIC_OPTIONS,
};

const tools = () => import('./index.js');

export const IMAGEMAGICK_REGISTRATION: ConverterRegistration<RasterOptions> = {
  ...IMAGEMAGICK,
  load: async () => (await tools()).createImageMagickConverter(),
};

export const LIBJXL_REGISTRATION: ConverterRegistration<RasterOptions> = {
  ...LIBJXL,
  load: async () => (await tools()).createLibjxlConverter(),
};

export const FFMPEG_IMAGE_REGISTRATION: ConverterRegistration<RasterOptions> = {
  ...FFMPEG_IMAGE,
  load: async () => (await tools()).createFfmpegImageConverter(),
};

export const LIBRAW_REGISTRATION: ConverterRegistration<RasterOptions> = {
  ...LIBRAW,
  load: async () => (await tools()).createLibrawConverter(),
};

export const LIBHEIF_REGISTRATION: ConverterRegistration<RasterOptions> = {
  ...LIBHEIF,
  load: async () => (await tools()).createLibheifConverter(),
};
