/**
 * What the raster tool converters offer the conversion graph. Each engine reads its formats into
 * PNG (TIFF for camera raw, whose 16 bits a PNG would keep too, but LibRaw writes TIFF) and writes
 * them from PNG; sharp does every other step, so jp2 -> webp plans as jp2 -> png -> webp.
 * Dependency-free, so an assembly can plan with these edges before it loads a converter.
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

/** One format an engine handles: whether it can write it, and whether writing it loses information. */
export interface RasterFormatSupport {
  format: FormatName;
  /** Read-only formats (psd: flattened; dng: developed) have no edge into them. */
  writes: boolean;
  /** Writing drops information a PNG holds (lossy codec, colour or alpha dropped). */
  writeLossy: boolean;
  /** Reading into PNG drops information (high dynamic range clipped to 16-bit display values). */
  readLossy: boolean;
}

const support = (
  format: FormatName,
  writes: boolean,
  writeLossy = false,
  readLossy = false,
): RasterFormatSupport => ({ format, writes, writeLossy, readLossy });

/** ImageMagick 6: the formats libvips does not read. */
export const IMAGEMAGICK_FORMATS: readonly RasterFormatSupport[] = [
  support('jp2', true),
  support('psd', false),
  support('tga', true),
  // PCX, PPM and HDR have no alpha channel; PGM is grey; PBM one bit; DDS is DXT-compressed.
  support('pcx', true, true),
  support('ppm', true, true),
  support('pgm', true, true),
  support('pbm', true, true),
  support('hdr', true, true, true),
  support('dds', true, true),
  support('sgi', true),
  // XPM holds a palette: a photo's colours are reduced.
  support('xpm', true, true),
  support('pam', true),
];

/** libjxl's cjxl and djxl. */
export const LIBJXL_FORMATS: readonly RasterFormatSupport[] = [support('jxl', true, true)];

/** ffmpeg's image codecs, for the two formats ImageMagick 6 lacks (QOI) or Debian builds without (EXR). */
export const FFMPEG_IMAGE_FORMATS: readonly RasterFormatSupport[] = [
  support('qoi', true),
  support('exr', true, false, true),
];

/** LibRaw's dcraw_emu: camera raw, developed into a 16-bit TIFF. */
export const LIBRAW_FORMATS: readonly RasterFormatSupport[] = [support('dng', false)];

/**
 * Edges to and from `hub` for each format. Cost 1.5: a process start and a PNG round trip on top
 * of sharp's in-process 1, so sharp's direct edges win wherever both exist.
 */
export function rasterEdges(
  formats: readonly RasterFormatSupport[],
  hub: FormatName = 'png',
): ConversionEdge[] {
  const edges: ConversionEdge[] = [];
  for (const { format, writes, writeLossy, readLossy } of formats) {
    edges.push({ from: format, to: hub, cost: 1.5, lossy: readLossy });
    if (writes) edges.push({ from: hub, to: format, cost: 1.5, lossy: writeLossy });
  }
  return edges;
}

/** JPEG -> JPEG XL is a lossless recompression in cjxl (the JPEG can be rebuilt bit for bit). */
export const LIBJXL_EDGES: readonly ConversionEdge[] = [
  ...rasterEdges(LIBJXL_FORMATS),
  { from: 'jpg', to: 'jxl', cost: 1.5, lossy: false },
];
export const IMAGEMAGICK_EDGES: readonly ConversionEdge[] = rasterEdges(IMAGEMAGICK_FORMATS);
export const FFMPEG_IMAGE_EDGES: readonly ConversionEdge[] = rasterEdges(FFMPEG_IMAGE_FORMATS);
export const LIBRAW_EDGES: readonly ConversionEdge[] = rasterEdges(LIBRAW_FORMATS, 'tiff');
/**
 * libheif's heif-enc writes HEIC (HEVC stills) from PNG and JPEG, which it reads itself; reading
 * HEIC is sharp's (a WebAssembly decoder), so these are the only edges. Lossy: HEVC, 4:2:0 by default.
 * From PNG a little cheaper than from JPEG, so a source that reaches both in one lossy step (an
 * animated WebP's first frame) goes through the lossless PNG rather than a JPEG re-encode.
 */
export const LIBHEIF_EDGES: readonly ConversionEdge[] = [
  { from: 'png', to: 'heic', cost: 1.4, lossy: true },
  { from: 'jpg', to: 'heic', cost: 1.5, lossy: true },
];
