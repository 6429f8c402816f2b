/**
 * What the Chromium converter offers the conversion graph, dependency-free (see
 * image/image-edges.ts for why).
 */
import type { ConversionEdge } from '../../core/ports/index.js';

/**
 * Costs. html -> pdf is 3, below LibreOffice's 4 (office/libreoffice-filters.ts): where both are
 * installed the browser, which lays out modern CSS (grid, flexbox, web fonts) as the page's author
 * saw it, wins; LibreOffice stays the fallback. md -> pdf is 3 too, above the text converter's 2:
 * that one needs no browser and lays out plain Markdown well, so it stays the default and Chromium
 * renders Markdown when the text converter is not installed (or a host lists only Chromium).
 * Screenshots are lossy (text becomes pixels), like pdf -> png.
 */
export const CHROMIUM_EDGES: readonly ConversionEdge[] = [
  { from: 'html', to: 'pdf', cost: 3, lossy: false },
  { from: 'md', to: 'pdf', cost: 3, lossy: false },
  { from: 'html', to: 'png', cost: 3, lossy: true },
  { from: 'html', to: 'jpg', cost: 3, lossy: true },
  { from: 'html', to: 'webp', cost: 3, lossy: true },
  // A zipped page with its assets (zip-site.ts) and a web page by its URL (web-source.ts): only
  // a browser renders them, so no cost needs to beat another converter's.
  ...(['htmlzip', 'url'] as const).flatMap((from) => [
    { from, to: 'pdf', cost: 3, lossy: false },
    { from, to: 'png', cost: 3, lossy: true },
    { from, to: 'jpg', cost: 3, lossy: true },
    { from, to: 'webp', cost: 3, lossy: true },
  ]),
];
