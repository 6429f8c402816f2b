/**
 * What the LibreOffice converter converts and how: its edges, and for each conversion the
 * LibreOffice application that opens the source (Writer, Calc, Impress, Draw), the import filter when
 * detection must not guess, and the export filter with its options.
 *
 * Filter names are LibreOffice's internal ones (share/registry/*.xcd lists them), each checked
 * against 7.4 with every fixture.
 */
import type { FormatName } from '../../core/formats/types.js';
import type { ConversionEdge } from '../../core/ports/index.js';

/** The application a source opens in (Writer, Calc, Impress, Draw); the bridge checks the loaded document really is one. */
export type OfficeFamily = 'text' | 'spreadsheet' | 'presentation' | 'drawing';

export interface FilterChoice {
  family: OfficeFamily;
  /** Forced import filter (detection is skipped), with its options. */
  importFilter?: string;
  importOptions?: string;
  exportFilter: string;
  exportOptions?: string;
}

/** Templates (ott, dotx...) and macro-enabled files (docm...) open like their documents; macros never run. */
export const DOCUMENT_SOURCES: readonly FormatName[] = [
  'docx',
  'doc',
  'odt',
  'rtf',
  'txt',
  'html',
  'ott',
  'dotx',
  'docm',
  'fodt',
  'sxw',
  'wpd',
  'pages',
];
export const SPREADSHEET_SOURCES: readonly FormatName[] = [
  'xlsx',
  'xls',
  'ods',
  'csv',
  'ots',
  'xltx',
  'xlsm',
  'fods',
  'xmlss',
  'slk',
  'dbf',
  'sxc',
];
export const PRESENTATION_SOURCES: readonly FormatName[] = [
  'pptx',
  'ppt',
  'odp',
  'key',
  'otp',
  'potx',
  'pptm',
  'fodp',
  'ppsx',
  'sxi',
];
/** Draw opens drawings and vector pictures (a metafile becomes one page of shapes). */
export const DRAWING_SOURCES: readonly FormatName[] = ['odg', 'emf', 'wmf', 'vsdx'];

/** Comma, double quote, UTF-8 (76), from line 1: CSV read as the web writes it. */
const CSV_OPTIONS = '44,34,76,1';
/**
 * The same for writing, and (token 7 false) quotes only where a field needs them, as the
 * spreadsheet converter writes CSV: LibreOffice otherwise quotes every text cell, so an ODS and
 * an XLSX of the same sheet gave two CSV dialects.
 */
const CSV_EXPORT_OPTIONS = `${CSV_OPTIONS},,0,false`;

/** The field separators a CSV may be written with (as the spreadsheet converter offers them). */
export const CSV_DELIMITERS = [',', ';', '|'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/** The CSV export options with `delimiter` as the first token (its character code). */
function csvExportOptions(delimiter: CsvDelimiter): string {
  return CSV_EXPORT_OPTIONS.replace(/^\d+/, String(delimiter.charCodeAt(0)));
}

/**
 * Export filters per family and target. Text: UTF-8, LF line ends, no byte-order mark (the
 * fifth token, IncludeBOM, is true by default). Writer HTML embeds its images as data URLs, so
 * the result is one file and nothing is written beside it.
 */
const EXPORTS: Record<OfficeFamily, Record<FormatName, [filter: string, options?: string]>> = {
  text: {
    pdf: ['writer_pdf_Export'],
    docx: ['MS Word 2007 XML'],
    odt: ['writer8'],
    rtf: ['Rich Text Format'],
    txt: ['Text (encoded)', 'UTF8,LF,,,false'],
    html: ['HTML (StarWriter)', 'EmbedImages'],
    epub: ['EPUB'],
    fodt: ['OpenDocument Text Flat XML'],
  },
  spreadsheet: {
    xlsx: ['Calc MS Excel 2007 XML'],
    xls: ['MS Excel 97'],
    ods: ['calc8'],
    csv: ['Text - txt - csv (StarCalc)', CSV_EXPORT_OPTIONS],
    pdf: ['calc_pdf_Export'],
    html: ['HTML (StarCalc)'],
    fods: ['OpenDocument Spreadsheet Flat XML'],
    xmlss: ['MS Excel 2003 XML'],
    slk: ['SYLK'],
    // 76: UTF-8, as it is read back (IMPORTS); LibreOffice writes no language-driver byte.
    dbf: ['dBase', '76'],
  },
  presentation: {
    pdf: ['impress_pdf_Export'],
    pptx: ['Impress MS PowerPoint 2007 XML'],
    odp: ['impress8'],
    fodp: ['OpenDocument Presentation Flat XML'],
    ppsx: ['Impress MS PowerPoint 2007 XML AutoPlay'],
  },
  drawing: {
    pdf: ['draw_pdf_Export'],
    png: ['draw_png_Export'],
    svg: ['draw_svg_Export'],
    odg: ['draw8'],
    emf: ['draw_emf_Export'],
    wmf: ['draw_wmf_Export'],
  },
};

/**
 * Sources whose bytes do not say how to read them: plain text would otherwise need a dialog for
 * its encoding, CSV for its separator, and HTML could open in Writer/Web instead of Writer.
 */
const IMPORTS: Partial<Record<FormatName, [filter: string, options: string]>> = {
  // The engine has already told a docx from its content; LibreOffice's own type detection, which
  // opens the package again to guess, cost ~3-15 ms of soffice CPU a document (fixture.docx,
  // 30 documents twice: 40 ms with the filter named, 44-57 ms without).
  docx: ['MS Word 2007 XML', ''],
  txt: ['Text (encoded)', 'UTF8'],
  csv: ['Text - txt - csv (StarCalc)', CSV_OPTIONS],
  html: ['HTML (StarWriter)', ''],
  // Excel 2003 XML is staged as input.xmlss, a name LibreOffice's type detection does not know.
  xmlss: ['MS Excel 2003 XML Orcus', ''],
  // Read in UTF-8 as written (76); LibreOffice 7.4 ignores a table's language-driver byte anyway,
  // and without a forced filter it would ask for the character set (a dialog in the pool).
  dbf: ['dBase', '76'],
};

/** Zip packages, checked for decompression bombs before LibreOffice opens them. */
export const ZIP_SOURCES: ReadonlySet<FormatName> = new Set([
  'docx',
  'xlsx',
  'pptx',
  'odt',
  'ods',
  'odp',
  'key',
  'ott',
  'ots',
  'otp',
  'dotx',
  'docm',
  'xltx',
  'xlsm',
  'potx',
  'pptm',
  'ppsx',
  'odg',
  'sxw',
  'sxc',
  'sxi',
  'vsdx',
  'pages',
]);

export function familyOf(format: FormatName): OfficeFamily | undefined {
  if (DOCUMENT_SOURCES.includes(format)) return 'text';
  if (SPREADSHEET_SOURCES.includes(format)) return 'spreadsheet';
  if (PRESENTATION_SOURCES.includes(format)) return 'presentation';
  if (DRAWING_SOURCES.includes(format)) return 'drawing';
  return undefined;
}

/**
 * The filters for `from` -> `to`, or undefined when this converter has no such edge; a CSV is
 * written with `delimiter` (default ',').
 */
export function chooseFilters(
  from: FormatName,
  to: FormatName,
  options: { delimiter?: CsvDelimiter | undefined } = {},
): FilterChoice | undefined {
  const family = familyOf(from);
  if (!family || from === to) return undefined;
  const target = EXPORTS[family][to];
  if (!target) return undefined;
  const [exportFilter, defaultOptions] = target;
  const exportOptions =
    to === 'csv' && options.delimiter ? csvExportOptions(options.delimiter) : defaultOptions;
  const source = IMPORTS[from];
  return {
    family,
    exportFilter,
    ...(exportOptions === undefined ? {} : { exportOptions }),
    ...(source ? { importFilter: source[0], importOptions: source[1] } : {}),
  };
}

/**
 * Targets that drop information from a formatted source: plain text, CSV, SYLK and dBase keep
 * the words and values only (the first sheet only), HTML and EPUB reflow and lose the page
 * layout, PNG turns shapes into pixels. PDF and the office formats keep the layout; the old
 * binary formats are close enough.
 */
const LOSSY_TARGETS: ReadonlySet<FormatName> = new Set(['txt', 'csv', 'html', 'epub', 'slk', 'dbf', 'png']);
/** Sources with nothing to lose: plain text, CSV, SYLK and dBase carry no formatting in the first place. */
const PLAIN_SOURCES: ReadonlySet<FormatName> = new Set(['txt', 'csv', 'slk', 'dbf']);

/**
 * Cost 4 for every edge: a LibreOffice conversion is a process round trip and a full layout,
 * several times the work of the in-process pure-JS converters (1-2). With `lossy` marked
 * honestly, docx -> pdf here (lossless, one hop) beats docx -> txt -> pdf (lossy).
 */
export const LIBREOFFICE_COST = 4;

export function buildEdges(): ConversionEdge[] {
  const edges: ConversionEdge[] = [];
  for (const [sources, family] of [
    [DOCUMENT_SOURCES, 'text'],
    [SPREADSHEET_SOURCES, 'spreadsheet'],
    [PRESENTATION_SOURCES, 'presentation'],
    [DRAWING_SOURCES, 'drawing'],
  ] as const) {
    for (const from of sources) {
      for (const to of Object.keys(EXPORTS[family])) {
        if (from === to) continue;
        const lossy = LOSSY_TARGETS.has(to) && !PLAIN_SOURCES.has(from);
        edges.push({ from, to, cost: LIBREOFFICE_COST, lossy });
      }
    }
  }
  return edges;
}
