/**
 * Looks inside the three container families file-type leaves generic or gets wrong on a short
 * head: OLE compound files (doc/xls/ppt all say 'cfb'), zips whose telling entry is not where
 * file-type looks, and ISO BMFF images (HEIF-family brands). Pure byte parsing of the head only;
 * anything outside the head is treated as unknown, never guessed.
 */
import type { FormatName } from './types.js';

/**
 * Results that name a container, not a registered format; isContentCompatible knows what fits
 * each. 'bz2' and 'xz' are the compressed wrappers of tbz2 and txz, whose tar cannot be seen from
 * a head (registry-archive.ts).
 */
export const GENERIC_CONTAINERS = ['cfb', 'iwork', 'bz2', 'xz'] as const;
export type GenericContainer = (typeof GENERIC_CONTAINERS)[number];

function view(head: Uint8Array): DataView {
  return new DataView(head.buffer, head.byteOffset, head.byteLength);
}

function latin1(head: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...head.subarray(start, end));
}

// ---------------------------------------------------------------------------------------------
// ISO BMFF brands (HEIC / HEIF / AVIF)

const HEVC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
const AV1_BRANDS = new Set(['avif', 'avis']);
const HEIF_GENERIC_BRANDS = new Set(['mif1', 'msf1', 'mif2']);

/** The brands of a leading 'ftyp' box, major brand first; undefined when there is none. */
export function ftypBrands(head: Uint8Array): string[] | undefined {
  if (head.length < 16 || latin1(head, 4, 8) !== 'ftyp') return undefined;
  // A real ftyp lists a handful of brands; the cap keeps a hostile size field cheap.
  const end = Math.min(view(head).getUint32(0), head.length, 1024);
  const brands = [latin1(head, 8, 12)];
  // Bytes 12-15 are the minor version; compatible brands follow, four bytes each.
  for (let at = 16; at + 4 <= end; at += 4) brands.push(latin1(head, at, at + 4));
  return brands.map((brand) => brand.trim());
}

/**
 * Which HEIF-family image an ftyp describes. file-type calls every 'mif1' file HEIC, but the
 * generic HEIF brands also front AVIF files (major 'mif1', compatible 'avif') and non-HEVC HEIF.
 */
export function heifFamilyKind(head: Uint8Array): 'heic' | 'heif' | 'avif' | undefined {
  const brands = ftypBrands(head);
  const major = brands?.[0];
  if (!brands || major === undefined) return undefined;
  if (AV1_BRANDS.has(major)) return 'avif';
  if (HEVC_BRANDS.has(major)) return 'heic';
  if (!HEIF_GENERIC_BRANDS.has(major)) return undefined;
  const compatible = brands.slice(1);
  if (compatible.some((brand) => HEVC_BRANDS.has(brand))) return 'heic';
  if (compatible.some((brand) => AV1_BRANDS.has(brand))) return 'avif';
  return 'heif';
}

// ---------------------------------------------------------------------------------------------
// OLE compound files (MS-CFB): doc, xls, ppt

const CFB_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** The stream at the root of the file that makes it a Word, PowerPoint or Excel file. */
const ROOT_STREAMS: ReadonlyArray<[string, FormatName]> = [
  ['worddocument', 'doc'],
  ['powerpoint document', 'ppt'],
  ['workbook', 'xls'], // Excel 97+
  ['book', 'xls'], // Excel 5/95
];
const MAX_SECTOR_ID = 0xfffffff9; // above are FREE/ENDOFCHAIN/FATSECT/DIFSECT markers
const DIRECTORY_ENTRY_BYTES = 128;
const STREAM = 2;
const ROOT = 5;

interface DirectoryEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
}

/** Reads the directory entries of a compound file that lie within the head, following the FAT chain. */
function readDirectory(head: Uint8Array): DirectoryEntry[] {
  const data = view(head);
  const shift = data.getUint16(0x1e, true);
  if (shift !== 9 && shift !== 12) return [];
  const sectorSize = 1 << shift;
  const idsPerFatSector = sectorSize / 4;
  const sectorStart = (sector: number) => (sector + 1) * sectorSize;
  const nextSector = (sector: number): number | undefined => {
    // The header holds the first 109 FAT sector locations; that covers any file under ~7 MB.
    const fatIndex = Math.floor(sector / idsPerFatSector);
    if (fatIndex >= 109) return undefined;
    const at = sectorStart(data.getUint32(0x4c + fatIndex * 4, true)) + (sector % idsPerFatSector) * 4;
    return at + 4 <= head.length ? data.getUint32(at, true) : undefined;
  };
  const utf16 = new TextDecoder('utf-16le');
  const entries: DirectoryEntry[] = [];
  const visited = new Set<number>();
  let sector: number | undefined = data.getUint32(0x30, true);
  while (sector !== undefined && sector <= MAX_SECTOR_ID && !visited.has(sector) && visited.size < 256) {
    visited.add(sector);
    const start = sectorStart(sector);
    if (start + sectorSize > head.length) break;
    for (let at = start; at < start + sectorSize; at += DIRECTORY_ENTRY_BYTES) {
      // The name length counts bytes including the UTF-16 terminator; 64 bytes at most.
      const nameBytes = Math.min(Math.max(data.getUint16(at + 0x40, true) - 2, 0), 62);
      entries.push({
        name: utf16.decode(head.subarray(at, at + nameBytes)),
        type: head[at + 0x42] ?? 0,
        left: data.getUint32(at + 0x44, true),
        right: data.getUint32(at + 0x48, true),
        child: data.getUint32(at + 0x4c, true),
      });
    }
    sector = nextSector(sector);
  }
  return entries;
}

/**
 * The names (lower-cased) of the streams directly under a compound file's root; undefined when
 * the head is not a compound file or its directory lies beyond the head. Only the root's own
 * children count: a Word file with an embedded Excel chart also holds a 'Workbook' stream, one
 * level down.
 */
function compoundRootStreams(head: Uint8Array): Set<string> | undefined {
  if (head.length < 512 || !CFB_SIGNATURE.every((byte, i) => head[i] === byte)) return undefined;
  const entries = readDirectory(head);
  const root = entries[0];
  if (!root || root.type !== ROOT) return undefined;
  // The children of a storage form a tree through left/right sibling links, rooted at `child`.
  const names = new Set<string>();
  const pending = [root.child];
  const seen = new Set<number>();
  while (pending.length > 0) {
    const id = pending.pop() ?? 0;
    const entry = entries[id];
    if (!entry || seen.has(id)) continue;
    seen.add(id);
    if (entry.type === STREAM) names.add(entry.name.toLowerCase());
    pending.push(entry.left, entry.right);
  }
  return names;
}

/** 'doc', 'xls' or 'ppt' from the streams under a compound file's root; undefined when unknown. */
export function compoundFileKind(head: Uint8Array): FormatName | undefined {
  const names = compoundRootStreams(head);
  return names && ROOT_STREAMS.find(([stream]) => names.has(stream))?.[1];
}

/**
 * True for a password-protected OOXML file (docx, xlsx, pptx): Office encrypts the whole zip and
 * wraps it in a compound file with EncryptionInfo and EncryptedPackage streams (MS-OFFCRYPTO), so
 * such a file is no longer a zip at all.
 */
export function isEncryptedOoxml(head: Uint8Array): boolean {
  const names = compoundRootStreams(head);
  return names?.has('encryptedpackage') === true && names.has('encryptioninfo');
}

// ---------------------------------------------------------------------------------------------
// Zip packages: OOXML, OpenDocument, EPUB, iWork, zipped web pages

/**
 * What detection answers for a zip that is a package of some format: a plain 'zip' accepts them
 * all (a docx is a zip), and a file merely named .zip is read as the package its bytes show.
 */
export const ZIP_PACKAGES: readonly (FormatName | GenericContainer)[] = [
  'docx',
  'xlsx',
  'pptx',
  'dotx',
  'docm',
  'xltx',
  'xlsm',
  'potx',
  'pptm',
  'odt',
  'ods',
  'odp',
  'ott',
  'ots',
  'otp',
  'epub',
  'key',
  'iwork',
  'htmlzip',
];

const LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];
/** The zip-based formats a stored 'mimetype' first entry can name (ODF and EPUB put it there). */
const MIMETYPE_ENTRY: Readonly<Record<string, FormatName>> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.text-template': 'ott',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ots',
  'application/vnd.oasis.opendocument.presentation-template': 'otp',
  'application/vnd.oasis.opendocument.graphics': 'odg',
  // OpenOffice.org 1.x, ODF's forerunner, laid its zips out the same way.
  'application/vnd.sun.xml.writer': 'sxw',
  'application/vnd.sun.xml.calc': 'sxc',
  'application/vnd.sun.xml.impress': 'sxi',
  'application/epub+zip': 'epub',
};
/** OOXML part folders. file-type only trusts them after seeing [Content_Types].xml, which some
 * writers (Google Docs, excelize) put last, far beyond any head. */
const OOXML_FOLDERS: ReadonlyArray<[string, FormatName]> = [
  ['word/', 'docx'],
  ['xl/', 'xlsx'],
  ['ppt/', 'pptx'],
  ['visio/', 'vsdx'],
];

function findLocalHeader(head: Uint8Array, from: number): number {
  for (let at = from; at + 4 <= head.length; at++) {
    if (LOCAL_HEADER.every((byte, i) => head[at + i] === byte)) return at;
  }
  return -1;
}

function entryKind(name: string): FormatName | GenericContainer | undefined {
  for (const [folder, format] of OOXML_FOLDERS) if (name.startsWith(folder)) return format;
  // Keynote '09 keeps its XML in index.apxl; iWork 2013+ (Keynote, Pages, Numbers) in Index/*.iwa.
  if (name === 'index.apxl' || name === 'index.apxl.gz') return 'key';
  if (name.startsWith('Index/') && name.endsWith('.iwa')) return 'iwork';
  // EPUB's OCF container file, which ODF has not. The 'mimetype' entry should come first, stored,
  // but real books (Debian's developers-reference, made by Sphinx) start with this file and
  // deflate mimetype later: readers and calibre open them all the same.
  if (name === 'META-INF/container.xml') return 'epub';
  return undefined;
}

/**
 * Whether a zip entry is the page of a zipped web site (htmlzip): index.html (or .htm) at the
 * root or one folder down. Which of several candidates is the page is the converter's business
 * (browser/zip-site.ts); here one is enough to tell the format. macOS adds __MACOSX/ copies.
 */
function isSiteIndex(name: string): boolean {
  return /^(?:[^/]+\/)?index\.html?$/i.test(name) && !name.startsWith('__MACOSX/');
}

/**
 * The package format of a zip from the entry names in the head's local file headers: a stored
 * 'mimetype' entry (ODF, EPUB), OOXML part folders, iWork index files, and failing those an
 * index.html (a zipped web page). Undefined when none shows.
 */
export function zipPackageKind(head: Uint8Array): FormatName | GenericContainer | undefined {
  const data = view(head);
  const utf8 = new TextDecoder('utf-8');
  // A package's telling entry outranks an index.html somewhere in it (an EPUB holds pages too).
  let siteIndex = false;
  let at = findLocalHeader(head, 0);
  for (let entries = 0; at !== -1 && at + 30 <= head.length && entries < 1024; entries++) {
    const flags = data.getUint16(at + 6, true);
    const method = data.getUint16(at + 8, true);
    const compressedSize = data.getUint32(at + 18, true);
    const nameEnd = at + 30 + data.getUint16(at + 26, true);
    const dataStart = nameEnd + data.getUint16(at + 28, true);
    if (nameEnd > head.length) break;
    const name = utf8.decode(head.subarray(at + 30, nameEnd));
    // A real mimetype entry is a few dozen bytes; anything bigger is not one.
    if (
      name === 'mimetype' &&
      method === 0 &&
      compressedSize <= 128 &&
      dataStart + compressedSize <= head.length
    ) {
      return MIMETYPE_ENTRY[latin1(head, dataStart, dataStart + compressedSize).trim()];
    }
    const kind = entryKind(name);
    if (kind) return kind;
    siteIndex ||= isSiteIndex(name);
    // With a data descriptor (flag bit 3) the size is only known after the data: scan for the next header.
    const sizeKnown = (flags & 0x08) === 0;
    at = findLocalHeader(head, sizeKnown ? dataStart + compressedSize : dataStart);
  }
  return siteIndex ? 'htmlzip' : undefined;
}
