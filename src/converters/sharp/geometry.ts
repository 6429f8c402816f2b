/**
 * Output geometry, computed before any pixel work so that the pixel limit also bounds what a
 * conversion creates: a 1x1 input asked for 16384x16384 would otherwise allocate a gigabyte.
 * Mirrors sharp's resize rules (a single side keeps the aspect ratio; 'inside'/'outside' scale
 * uniformly; 'cover', 'contain' and 'fill' produce exactly width x height). For SVG, sharp already
 * rasterises at the scale the resize needs (shrink-on-load works both ways), so this bounds the
 * rendering as well.
 */
import type { ImageOptions } from './image-options.js';

export interface Size {
  width: number;
  height: number;
}

const scaled = (size: Size, scale: number): Size => ({
  width: Math.max(1, Math.round(size.width * scale)),
  height: Math.max(1, Math.round(size.height * scale)),
});

/** The size of one output frame for a `source` frame resized with `options`. */
export function outputSize(source: Size, options: Pick<ImageOptions, 'width' | 'height' | 'fit'>): Size {
  const { width, height } = options;
  if (width === undefined && height === undefined) return source;
  if (height === undefined) return { ...scaled(source, (width ?? 1) / source.width), width: width ?? 1 };
  if (width === undefined) return { ...scaled(source, height / source.height), height };
  const fit = options.fit ?? 'inside';
  if (fit === 'inside' || fit === 'outside') {
    const pick = fit === 'inside' ? Math.min : Math.max;
    return scaled(source, pick(width / source.width, height / source.height));
  }
  return { width, height };
}
