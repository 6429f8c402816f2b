/**
 * What the calibre converter converts, and how ebook-convert is asked for each target. Plain data,
 * imported by the preset without loading the converter.
 *
 * Sources are the e-book formats only. calibre also reads docx, odt, html and txt, but its HTML
 * input follows links to local files (that is how it gathers a book from a folder), which an
 * upload must never do; documents reach the e-book formats through LibreOffice's EPUB export
 * (its profile blocks linked resources) and then this converter.
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

export const CALIBRE_SOURCES: readonly FormatName[] = ['epub', 'mobi', 'azw3', 'fb2'];

/** Per target: the extension ebook-convert picks its output plugin by, and the arguments it gets. */
export interface CalibreTarget {
  extension: string;
  args: readonly string[];
  /** Drops something the source held (styles, layout, tables' grid, images). */
  lossy: boolean;
}

export const CALIBRE_TARGETS: Readonly<Record<FormatName, CalibreTarget>> = {
  // No generated cover: calibre otherwise adds a 40 KB picture of the title to every book.
  epub: { extension: 'epub', args: ['--no-default-epub-cover'], lossy: false },
  // MOBI 6 only ('old', calibre's default): what every Kindle opens; it keeps little of the CSS.
  mobi: { extension: 'mobi', args: ['--mobi-file-type', 'old'], lossy: true },
  azw3: { extension: 'azw3', args: [], lossy: false },
  // FictionBook has no styles and no tables in calibre's writer.
  fb2: { extension: 'fb2', args: [], lossy: true },
  pdf: { extension: 'pdf', args: [], lossy: false },
  docx: { extension: 'docx', args: [], lossy: false },
  txt: { extension: 'txt', args: ['--txt-output-encoding', 'utf-8', '--newline', 'unix'], lossy: true },
  md: {
    extension: 'txt',
    args: ['--txt-output-formatting', 'markdown', '--txt-output-encoding', 'utf-8', '--newline', 'unix'],
    lossy: true,
  },
  // calibre's HTMLZ: index.html, its stylesheet and images in a zip, which is what htmlzip is.
  htmlzip: { extension: 'htmlz', args: [], lossy: false },
};

/**
 * Cost 6: one ebook-convert run is a Python and Qt start-up, about 1-1.5 s of CPU for a small
 * book (measured on fixture.epub), more than a LibreOffice conversion (4) on its warm pool.
 */
export const CALIBRE_COST = 6;

/**
 * calibre's plain-text and Markdown writers flatten a table into one paragraph per cell. Its DOCX
 * keeps tables, and the mammoth converter turns DOCX into pipe tables (md) and tab-separated rows
 * (txt) for one more cheap step: at 8, these direct edges lose to epub -> docx -> md (6 + 1) and
 * -> txt (6 + 1.5), and stay as the fallback where mammoth is not installed.
 */
const FLAT_TEXT_COST = 8;

export function buildCalibreEdges(): ConversionEdge[] {
  const edges: ConversionEdge[] = [];
  for (const from of CALIBRE_SOURCES) {
    for (const [to, target] of Object.entries(CALIBRE_TARGETS)) {
      const cost = to === 'txt' || to === 'md' ? FLAT_TEXT_COST : CALIBRE_COST;
      if (from !== to) edges.push({ from, to, cost, lossy: target.lossy });
    }
  }
  return edges;
}

export const CALIBRE_EDGES: readonly ConversionEdge[] = buildCalibreEdges();
