/**
 * What the text converter offers the conversion graph, dependency-free (see image/image-edges.ts for why).
 */
import type { ConversionEdge } from '../../core/ports/index.js';

/**
 * Costs: 1 for a parse and a re-serialise, 2 for laying out a PDF. html -> txt costs 1.5 so that
 * html -> pdf goes through Markdown, which keeps headings and lists, rather than through plain text.
 * Lossy: whatever drops markup (to Markdown, which has no equivalent for much of HTML; to text).
 * md -> html, txt -> html, txt -> pdf and md -> pdf keep all the text.
 */
/**
 * The npm packages each step loads (ConversionEdge.packages): a PDF is laid out with pdf-lib and
 * fontkit (which needs regenerator-runtime) in DejaVu; Markdown is read with marked, HTML with
 * turndown (and Markdown to text or PDF keeps the text of raw HTML blocks through it). So
 * md -> html asks for marked alone, txt -> html for nothing.
 */
const PDF_OUTPUT = ['pdf-lib', '@pdf-lib/fontkit', 'dejavu-fonts-ttf', 'regenerator-runtime'];

export const TEXT_EDGES: readonly ConversionEdge[] = [
  { from: 'md', to: 'html', cost: 1, lossy: false, packages: ['marked'] },
  { from: 'txt', to: 'html', cost: 1, lossy: false },
  { from: 'html', to: 'md', cost: 1, lossy: true, packages: ['turndown'] },
  { from: 'html', to: 'txt', cost: 1.5, lossy: true, packages: ['turndown'] },
  { from: 'md', to: 'txt', cost: 1, lossy: true, packages: ['marked', 'turndown'] },
  { from: 'txt', to: 'pdf', cost: 2, lossy: false, packages: PDF_OUTPUT },
  { from: 'md', to: 'pdf', cost: 2, lossy: false, packages: ['marked', 'turndown', ...PDF_OUTPUT] },
];
