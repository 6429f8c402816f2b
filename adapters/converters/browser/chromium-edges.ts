/**
 * What the Chromium converter offers the conversion graph, dependency-free (see
 * image/image-edges.ts for why).
 */
import type { ConversionEdge } from '../../../src/ports.js';

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
];
