/**
 * Checks on an xlsx's parts made from the zip's central directory before exceljs starts, for what
 * exceljs handles badly on its own:
 *
 * - xl/workbook.xml must exist. Without it exceljs fails in the middle of its walk (a TypeError),
 *   after copying worksheets to temporary files it then never removes (until the process exits).
 * - The shared-string table (xl/sharedStrings.xml) is the one part the streaming reader holds
 *   whole. The zip checks bound the whole archive (1 GiB by default), far more than a process
 *   should hold as strings, so the table gets a limit of its own.
 *
 * - Which of the parts exceljs needs before a worksheet's rows the zip holds: xlsx-source.ts checks
 *   that exceljs's walk did not lose one of them (its streaming unzip can end early).
 *
 * Declared sizes can be trusted here: assertSafeZip has already inflated every entry and compared
 * it with its declared size.
 */
import yauzl from 'yauzl';
import { FileconvError } from '../../core/errors.js';

export const WORKBOOK = 'xl/workbook.xml';
export const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';
export const SHARED_STRINGS = 'xl/sharedStrings.xml';
export const STYLES = 'xl/styles.xml';
const OF_INTEREST = new Set([WORKBOOK, WORKBOOK_RELS, SHARED_STRINGS, STYLES]);
const WORKSHEET = /^xl\/worksheets\/sheet\d+\.xml$/;

/** The workbook-level parts (WORKBOOK, WORKBOOK_RELS, SHARED_STRINGS, STYLES) and worksheets a zip holds. */
export type WorkbookParts = ReadonlySet<string>;

/** Inflated sizes of the parts of interest, by name; a part the zip lacks is absent. */
async function partSizes(path: string): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  try {
    for await (const entry of zip.eachEntry()) {
      if (OF_INTEREST.has(entry.fileName) || WORKSHEET.test(entry.fileName)) {
        sizes.set(entry.fileName, entry.uncompressedSize);
      }
    }
  } finally {
    if (zip.isOpen) zip.close();
  }
  return sizes;
}

/**
 * CORRUPT_INPUT when the zip has no xl/workbook.xml (a docx or another zip named .xlsx);
 * INPUT_LIMIT_EXCEEDED when its shared-string table inflates past `maxSharedStringsBytes`.
 * Returns the workbook-level and worksheet parts the zip holds.
 */
export async function assertWorkbookParts(
  path: string,
  maxSharedStringsBytes: number,
): Promise<WorkbookParts> {
  const sizes = await partSizes(path);
  if (!sizes.has(WORKBOOK)) {
    throw new FileconvError(
      'CORRUPT_INPUT',
      'The file has no xl/workbook.xml: it is not an Excel workbook (another zip named .xlsx?).',
      { details: { reason: 'no-workbook' } },
    );
  }
  const shared = sizes.get(SHARED_STRINGS) ?? 0;
  if (shared > maxSharedStringsBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `The workbook's shared-string table inflates to ${shared} bytes; the limit is ${maxSharedStringsBytes} (it is held in memory)`,
      { details: { maxSharedStringsBytes, size: shared } },
    );
  }
  return new Set(sizes.keys());
}
