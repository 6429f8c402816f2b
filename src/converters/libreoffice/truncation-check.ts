/**
 * Truncation checks for inputs LibreOffice reads leniently: it renders whatever part of a cut
 * EMF or WMF it parsed, reads a cut Excel 2003 XML file with Orcus up to the break and a
 * WordPerfect file cut inside its header as an empty document, reporting success each time. Each of these says how long it is (the metafile headers) or how it must
 * end (the XML root's end tag), so a short file is CORRUPT_INPUT before LibreOffice sees it.
 */
import { open } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';

const WMF_PLACEABLE_KEY = 0x9ac6cdd7;
const WMF_PLACEABLE_BYTES = 22;
const TAIL_BYTES = 256;
const CHECKED: ReadonlySet<FormatName> = new Set(['emf', 'wmf', 'wpd', 'xmlss']);

/**
 * The length the file's own header declares (at least), or undefined when it declares none. A
 * WordPerfect header says only where the document area starts; its text has no end mark.
 */
function declaredLength(format: FormatName, head: Buffer): number | undefined {
  if (format === 'wpd') return head.length >= 8 ? head.readUInt32LE(4) + 1 : undefined;
  if (format === 'emf' && head.length >= 52) return head.readUInt32LE(48); // EMR_HEADER nBytes
  if (format === 'wmf') {
    const start = head.length >= 4 && head.readUInt32LE(0) === WMF_PLACEABLE_KEY ? WMF_PLACEABLE_BYTES : 0;
    // METAHEADER mtSize: the whole metafile in 16-bit words, from the METAHEADER on.
    return head.length >= start + 10 ? start + head.readUInt32LE(start + 6) * 2 : undefined;
  }
  return undefined;
}

function truncated(format: FormatName): FileconvError {
  return new FileconvError('CORRUPT_INPUT', `The ${format} file is truncated: it ends before its own end`, {
    details: { reason: 'truncated', format },
  });
}

/** CORRUPT_INPUT when an emf, wmf, wpd or xmlss input `size` bytes long is visibly cut short. */
export async function assertNotTruncated(path: string, format: FormatName, size: number): Promise<void> {
  if (!CHECKED.has(format)) return;
  const file = await open(path, 'r');
  try {
    if (format === 'xmlss') {
      const tail = Buffer.alloc(Math.min(TAIL_BYTES, size));
      await file.read(tail, 0, tail.length, size - tail.length);
      // The root is <Workbook> (or <ss:Workbook>); nothing but comments and space may follow it.
      const end = tail.toString('latin1').replace(/(?:\s|<!--[\s\S]*?-->)*$/, '');
      if (!/<\/(?:[\w.-]+:)?Workbook\s*>$/.test(end)) throw truncated(format);
      return;
    }
    const head = Buffer.alloc(Math.min(64, size));
    await file.read(head, 0, head.length, 0);
    const declared = declaredLength(format, head);
    if (declared === undefined || size < declared) throw truncated(format);
  } finally {
    await file.close();
  }
}
