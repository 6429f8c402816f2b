/**
 * A conversion's options as LibreOffice takes them: the PDF export's FilterData (property names
 * from https://help.libreoffice.org/latest/en-US/text/shared/guide/pdf_params.html), the password
 * for the load, and `landscape`, which no filter property does (the bridge turns the pages). The
 * pool's bridge gets these as they are; a cold `--convert-to` gets the FilterData as the JSON
 * LibreOffice 7.4+ reads after the filter name.
 */
import { FileconvError } from '../../core/errors.js';
import { readPageRanges } from '../../core/page-ranges.js';
import { isCrash } from './libreoffice-errors.js';
import type { LibreOfficeOptions } from './libreoffice-options.js';

export type FilterValue = boolean | number | string;

/** What a conversion's options add to its bridge request. */
export interface OptionSettings {
  filterData?: Record<string, FilterValue>;
  /** Opens the input (MediaDescriptor Password). */
  password?: string;
  /** Portrait pages turned landscape before export. */
  landscape?: boolean;
}

const PDF_VERSIONS = { '1b': 1, '2b': 2, '3b': 3 } as const;

/** Page ranges as LibreOffice's PageRange reads them ('1-2,5-'); undefined for all pages. */
function pageRange(spec: string): string | undefined {
  const ranges = readPageRanges(spec);
  if (ranges.length === 0) return undefined;
  return ranges.map(({ first, last }) => (last === first ? `${first}` : `${first}-${last ?? ''}`)).join(',');
}

/** The PDF export's FilterData for `options`; only what was given, so LibreOffice's defaults stay. */
function pdfFilterData(options: Partial<LibreOfficeOptions>): Record<string, FilterValue> {
  const data: Record<string, FilterValue> = {};
  const range = options.pageRanges === undefined ? undefined : pageRange(options.pageRanges);
  if (range !== undefined) data.PageRange = range;
  if (options.pdfa !== undefined) data.SelectPdfVersion = PDF_VERSIONS[options.pdfa];
  if (options.pdfua !== undefined) data.PDFUACompliance = options.pdfua;
  if (options.exportFormFields !== undefined) data.ExportFormFields = options.exportFormFields;
  if (options.exportBookmarks !== undefined) data.ExportBookmarks = options.exportBookmarks;
  if (options.exportNotes !== undefined) data.ExportNotes = options.exportNotes;
  if (options.losslessImages !== undefined) data.UseLosslessCompression = options.losslessImages;
  if (options.quality !== undefined) data.Quality = options.quality;
  if (options.maxImageResolution !== undefined) {
    data.ReduceImageResolution = true;
    data.MaxImageResolution = options.maxImageResolution;
  }
  if (options.singlePageSheets !== undefined) data.SinglePageSheets = options.singlePageSheets;
  return data;
}

/** The settings a conversion to `to` with (parsed) `options` adds to its request. */
export function optionSettings(to: string, options: Partial<LibreOfficeOptions>): OptionSettings {
  const filterData = to === 'pdf' ? pdfFilterData(options) : {};
  return {
    ...(Object.keys(filterData).length > 0 ? { filterData } : {}),
    ...(options.password === undefined ? {} : { password: options.password }),
    ...(options.landscape ? { landscape: true } : {}),
  };
}

/** `filterData` as the JSON a `--convert-to` filter takes: each value a string with its UNO type. */
export function filterDataJson(filterData: Record<string, FilterValue>): string {
  const typed = Object.fromEntries(
    Object.entries(filterData).map(([name, value]) => [
      name,
      { type: typeof value === 'number' ? 'long' : typeof value, value: String(value) },
    ]),
  );
  return JSON.stringify(typed);
}

/** The options among `settings` that only the pool's bridge can apply. */
export function poolOnlyOptions(settings: OptionSettings): string[] {
  return [settings.password && 'password', settings.landscape && 'landscape'].filter(
    (name): name is string => typeof name === 'string',
  );
}

/**
 * A cold `soffice --convert-to` has no way to pass a load password nor to change page styles:
 * such a conversion needs the warm pool (python3-uno), and says so rather than ignore the option.
 */
export function assertColdCan(settings: OptionSettings): void {
  const needs = poolOnlyOptions(settings);
  if (needs.length === 0) return;
  throw new FileconvError(
    'ENGINE_UNAVAILABLE',
    `The LibreOffice option(s) ${needs.join(', ')} need the warm pool (a Python with the uno module, python3-uno); a cold soffice cannot apply them.`,
    { details: { engine: 'libreoffice', mode: 'cold', options: needs } },
  );
}

/**
 * A PDF export given `pageRanges` that failed to write (LibreOffice writes nothing when no page
 * is in the ranges, measured with 7.4: "5" of a 3-page document) is INVALID_OPTIONS naming
 * them, LibreOffice's message kept as the cause; any other error is returned as it is.
 */
export function blameEmptyRange(error: unknown, to: string, options: Partial<LibreOfficeOptions>): unknown {
  const { pageRanges } = options;
  if (to !== 'pdf' || pageRanges === undefined || pageRange(pageRanges) === undefined) return error;
  if (!(error instanceof FileconvError) || error.code !== 'CONVERSION_FAILED' || isCrash(error)) return error;
  const problem = `no page of the document is in "${pageRanges}"`;
  return new FileconvError('INVALID_OPTIONS', `Invalid options for pdf: pageRanges: ${problem}.`, {
    cause: error,
    details: { issues: [{ path: 'pageRanges', message: problem }] },
  });
}
