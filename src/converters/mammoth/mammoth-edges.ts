/**
 * What the mammoth converter offers the conversion graph, dependency-free (see image/image-edges.ts for why).
 */
import type { ConversionEdge } from '../../core/ports/index.js';

/**
 * Costs: 1 for docx -> html and -> md (one mammoth pass, plus a cheap turndown pass). docx -> txt
 * costs 1.5 so that, without LibreOffice, docx -> pdf goes docx -> md -> pdf, keeping headings and
 * lists, rather than through plain text. All lossy (see the module comment).
 */
export const MAMMOTH_EDGES: readonly ConversionEdge[] = [
  { from: 'docx', to: 'html', cost: 1, lossy: true },
  { from: 'docx', to: 'md', cost: 1, lossy: true },
  { from: 'docx', to: 'txt', cost: 1.5, lossy: true },
];
