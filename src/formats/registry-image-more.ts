/** Raster image formats beyond the common web ones (jxl, jp2, psd, camera raw, tga, ...), read and written through ImageMagick, libjxl, libraw or ffmpeg. Conventions: registry.ts. */
import type { FormatDefinition } from './types.js';

export const RASTER_FORMATS: readonly FormatDefinition[] = [];
