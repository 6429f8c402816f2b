/**
 * Content detection: which format the leading bytes of a file are, and whether that matches the
 * format the client declared. Untrusted uploads are checked with these two before any converter
 * sees them (DESIGN.md section 6).
 *
 * detectFormat answers with a canonical registry name, or with one of GENERIC_CONTAINERS when the
 * bytes only reveal the container ('cfb': an OLE file that is not recognisably doc/xls/ppt from
 * the head; 'iwork': an Apple iWork 2013+ package; 'bz2', 'xz': a compressed stream, whose
 * content the head cannot show), or undefined. A zip with no telling entry is 'zip', the archive;
 * a gzip stream is 'tgz' when a tar header shows inside it, 'svgz' when an SVG does, and
 * unrecognised otherwise. Text is 'txt' unless it is recognisably HTML, SVG, RTF, FictionBook or
 * a URL file: csv, tsv and md are never detected by name, they are text. A zip is 'htmlzip' when
 * an index.html shows in the head and no package format does.
 *
 * Compatibility (isContentCompatible), declared -> detected results accepted besides itself:
 *
 * | declared                | also accepts           | why                                               |
 * |-------------------------|------------------------|---------------------------------------------------|
 * | heic, heif              | each other             | same HEIF container; brands vary by writer        |
 * | mp4, m4v, mov, 3gp, m4a | each other             | ISO BMFF; the major brand is the writer's whim    |
 * | ogg, ogv, opus          | each other             | Ogg; the first stream decides what file-type says |
 * | mkv, webm               | each other             | Matroska; WebM is a Matroska subset               |
 * | wma, wmv                | each other             | ASF; the first stream decides audio vs video      |
 * | ppm, pgm, pbm           | each other             | netpbm; a .pnm holds any of the three             |
 * | doc, xls, ppt           | cfb                    | the OLE directory was not within the head         |
 * | key                     | iwork                  | Keynote/Pages/Numbers 2013+ share one layout      |
 * | mobi, azw3              | each other             | a joint Kindle file holds a MOBI 6 and a KF8 book |
 * | htmlzip                 | zip                    | the index.html lay beyond the head                |
 * | eps, ps                 | each other             | PostScript; 'EPSF' in line 1 is the writer's whim |
 * | zip                     | ZIP_PACKAGES           | a docx, epub, htmlzip... is a zip all the same    |
 * | tbz2, txz               | bz2, xz                | the tar inside is not visible from a head         |
 * | txt                     | html, svg, rtf, url,   | all text; reading it as plain text is faithful    |
 * |                         | fb2, slk, xml, srt,    |                                                   |
 * |                         | vtt, ass, ssa, ics, vcf|                                                   |
 * | md                      | txt, html, url         | Markdown is text and may open with HTML           |
 * | csv, tsv, json, jsonl,  | txt, url               | delimited text, JSON and YAML have no signature   |
 * | yaml, toml              |                        |                                                   |
 * | csv                     | slk                    | a semicolon CSV can begin 'ID;P' like SYLK        |
 * | ppsx                    | pptx, potx, pptm       | one content type apart (LibreOffice writes pptx's) |
 * | xml, srt                | txt                    | no declaration; a SubRip head the sniff misses    |
 * | ass, ssa                | each other             | the version line may be missing                   |
 * | any                     | nothing when undefined | unrecognised non-text bytes never pass            |
 *
 * Everything else must match exactly: text declared png, a zip declared docx, an unknown format
 * or empty input are all incompatible.
 */
import {
  compoundFileKind,
  type GenericContainer,
  heifFamilyKind,
  ZIP_PACKAGES,
  zipPackageKind,
} from './detect-containers.js';
import { mobiKind } from './detect-ebook.js';
import { officeBinaryKind } from './detect-office.js';
import { sniffRasterBinary, sniffRasterText } from './detect-raster.js';
import { isGzippedSvg } from './detect-svgz.js';
import { sniffText } from './detect-text.js';
import { getFormat } from './lookup.js';
import type { FormatName } from './types.js';

export { GENERIC_CONTAINERS, type GenericContainer } from './detect-containers.js';

/**
 * Leading bytes detectFormat should be given. file-type settles most formats within its own
 * 4100-byte sample, but not all: zip packages are told apart by entry names that can sit behind
 * a large first entry (file-type alone says 'zip' for a docx whose [Content_Types].xml is not
 * first), OLE files by a directory that may lie sectors in, ASF by header objects that grow with
 * metadata. Measured on the fixtures and on larger real and constructed files, every format
 * settled within 320 bytes (ASF) when the telling part came first; 64 KiB leaves room for the
 * files where it does not, and costs one small read per upload.
 */
export const DETECTION_BYTES = 64 * 1024;

/** file-type extensions that map straight onto a registry name (the rest need a closer look). */
const FILE_TYPE_NAMES: Readonly<Record<string, FormatName>> = {
  jpg: 'jpg',
  png: 'png',
  apng: 'png',
  gif: 'gif',
  webp: 'webp',
  avif: 'avif',
  tif: 'tiff',
  bmp: 'bmp',
  ico: 'ico',
  jxl: 'jxl',
  jp2: 'jp2',
  j2c: 'jp2', // a bare JPEG 2000 codestream
  jpx: 'jp2',
  psd: 'psd',
  dng: 'dng',
  mp4: 'mp4',
  f4v: 'mp4', // Flash's MP4 flavour
  m4v: 'm4v',
  mov: 'mov',
  '3gp': '3gp',
  '3g2': '3gp',
  m4a: 'm4a',
  m4b: 'm4a',
  f4a: 'm4a',
  f4b: 'm4a',
  webm: 'webm',
  mkv: 'mkv',
  avi: 'avi',
  flv: 'flv',
  mpg: 'mpeg',
  mts: 'ts',
  ogv: 'ogv',
  ogm: 'ogv',
  ogg: 'ogg',
  oga: 'ogg',
  spx: 'ogg',
  ogx: 'ogg',
  opus: 'opus',
  mp3: 'mp3',
  mp2: 'mp3', // MPEG audio layers 1 and 2 share audio/mpeg and every MP3 decoder
  mp1: 'mp3',
  wav: 'wav',
  flac: 'flac',
  aac: 'aac',
  ac3: 'ac3',
  pdf: 'pdf',
  rtf: 'rtf',
  epub: 'epub',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
  odt: 'odt',
  ods: 'ods',
  odp: 'odp',
  ott: 'ott',
  ots: 'ots',
  otp: 'otp',
  dotx: 'dotx',
  docm: 'docm',
  xltx: 'xltx',
  xlsm: 'xlsm',
  potx: 'potx',
  pptm: 'pptm',
  ttf: 'ttf',
  otf: 'otf',
  woff: 'woff',
  woff2: 'woff2',
  eps: 'eps', // '%!PS-Adobe-n.n EPSF-' or the DOS EPS binary header C5 D0 D3 C6
  ps: 'ps', // any other '%!'
  tar: 'tar',
  'tar.gz': 'tgz', // file-type inflates a gzip stream and finds a tar header in it
  '7z': '7z',
  rar: 'rar',
  ppsx: 'ppsx',
  odg: 'odg',
  vsdx: 'vsdx',
  vtt: 'vtt',
  ics: 'ics',
  vcf: 'vcf',
};

/**
 * file-type results resting on signatures text can contain: a transport stream is a 'G' at
 * offsets 0 and 188, MPEG audio a frame sync anywhere in the first bytes (the UTF-16LE byte-order
 * mark FF FE is one). Real files of these kinds are never text, so when the bytes are text, text wins.
 */
const WEAK_SIGNATURES = new Set(['mts', 'mp1', 'mp2', 'mp3', 'aac']);

/** Our name for what file-type found, refined from the bytes where file-type is coarse. */
function fromFileType(ext: string, mime: string, head: Uint8Array): FormatName | undefined {
  switch (ext) {
    case 'heic':
      return heifFamilyKind(head) ?? 'heif';
    case 'aif': {
      // file-type says 'aif' for any IFF 'FORM' file; AIFF/AIFC name their form type at offset 8.
      const formType = String.fromCharCode(...head.subarray(8, 12));
      return formType === 'AIFF' || formType === 'AIFC' ? 'aiff' : undefined;
    }
    case 'asf':
      return mime.startsWith('audio/') ? 'wma' : 'wmv';
    case 'cfb':
      return compoundFileKind(head) ?? 'cfb';
    case 'zip':
      return zipPackageKind(head) ?? 'zip';
    case 'mobi':
      return mobiKind(head);
    case 'gz':
      return isGzippedSvg(head) ? 'svgz' : FILE_TYPE_NAMES[ext];
    case 'cur':
      // An uncompressed TGA without an ID field starts 00 00 02 00 too, which is all file-type checks.
      return sniffRasterBinary(head);
    case 'bz2':
    case 'xz':
      return ext;
    default:
      return FILE_TYPE_NAMES[ext];
  }
}

/**
 * Signatures file-type misses on a head: TIFF whose IFD lies beyond it, PDF with leading junk,
 * and those it has none for: raster formats (detect-raster.ts), dBase tables, EMF and WMF
 * (detect-office.ts).
 */
function sniffBinary(head: Uint8Array): FormatName | undefined {
  const starts = (bytes: readonly number[]) => bytes.every((byte, i) => head[i] === byte);
  if (starts([0x49, 0x49, 0x2a, 0x00]) || starts([0x4d, 0x4d, 0x00, 0x2a])) return 'tiff';
  if (starts([0x49, 0x49, 0x2b, 0x00]) || starts([0x4d, 0x4d, 0x00, 0x2b])) return 'tiff'; // BigTIFF
  // Readers accept '%PDF-' anywhere in the first 1024 bytes (PDF 1.7, annex H).
  if (new TextDecoder('latin1').decode(head.subarray(0, 1024)).includes('%PDF-')) return 'pdf';
  return sniffRasterBinary(head) ?? officeBinaryKind(head);
}

/**
 * The most common uploads, told by signatures no other format shares: exactly what file-type
 * answers for them (a JPEG-LS file, FF D8 FF F7, is not a JPEG), without loading file-type, which
 * is a seventh of a command-line conversion's start-up.
 */
function commonSignature(head: Uint8Array): FormatName | undefined {
  const starts = (bytes: readonly number[], offset = 0) =>
    bytes.every((byte, i) => head[offset + i] === byte);
  if (starts([0xff, 0xd8, 0xff]) && head[3] !== 0xf7) return 'jpg';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0x47, 0x49, 0x46])) return 'gif';
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return 'webp';
  return undefined;
}

let fileType: Promise<typeof import('file-type')> | undefined;

/** The format of a file from its leading bytes (DETECTION_BYTES of them); undefined when unrecognised. */
export async function detectFormat(head: Uint8Array): Promise<FormatName | GenericContainer | undefined> {
  if (head.length === 0) return undefined;
  const common = commonSignature(head);
  if (common) return common;
  fileType ??= import('file-type');
  const { fileTypeFromBuffer } = await fileType;
  // file-type handles hostile input itself; a throw from it just means "not recognised".
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found) {
    const text = WEAK_SIGNATURES.has(found.ext) ? sniffText(head) : undefined;
    // A confident file-type answer we have no name for (exe, gz, ...) is not second-guessed by
    // the binary sniffs below; only text it calls something else (xml, vtt, ...) still counts.
    return text ?? fromFileType(found.ext, found.mime, head) ?? sniffText(head);
  }
  return sniffRasterText(head) ?? sniffText(head) ?? sniffBinary(head);
}

const MUTUALLY_COMPATIBLE: readonly (readonly FormatName[])[] = [
  ['heic', 'heif'],
  ['mp4', 'm4v', 'mov', '3gp', 'm4a'],
  ['ogg', 'ogv', 'opus'],
  ['mkv', 'webm'],
  ['wma', 'wmv'],
  // A document, its template and its macro-enabled variant differ by one content type (OOXML)
  // or mimetype entry (ODF), which a head may not reach (then the folders say docx, xlsx, pptx).
  ['docx', 'dotx', 'docm'],
  ['xlsx', 'xltx', 'xlsm'],
  ['pptx', 'potx', 'pptm', 'ppsx'],
  ['odt', 'ott'],
  ['ods', 'ots'],
  ['odp', 'otp'],
  // A joint Kindle file holds a MOBI 6 book and a KF8 one: named either way, it is read either way.
  ['mobi', 'azw3'],
  // Both are PostScript, told apart by an 'EPSF' in the first line that some writers of .eps leave out.
  ['eps', 'ps'],
  // A .pnm may hold any of the three; ImageMagick's PNM reader takes them all.
  ['ppm', 'pgm', 'pbm'],
  // SSA and ASS differ by a version line and a section name that a script may leave out.
  ['ass', 'ssa'],
];
const ALSO_ACCEPTS: Readonly<Record<FormatName, readonly string[]>> = {
  doc: ['cfb'],
  xls: ['cfb'],
  ppt: ['cfb'],
  key: ['iwork'],
  // Pages '09 names nothing but index.xml in its zip; 2013+ is the shared iWork layout.
  pages: ['iwork', 'zip'],
  htmlzip: ['zip'],
  zip: ZIP_PACKAGES,
  tbz2: ['bz2'],
  txz: ['xz'],
  // A text file that happens to hold one URL is still text when it says so.
  txt: ['html', 'svg', 'rtf', 'url', 'fb2', 'slk', 'xml', 'srt', 'vtt', 'ass', 'ssa', 'ics', 'vcf'],
  md: ['txt', 'html', 'url'],
  // A semicolon CSV can open like SYLK ('ID;P...'): read as what it was declared.
  csv: ['txt', 'url', 'slk'],
  tsv: ['txt', 'url'],
  json: ['txt', 'url'],
  jsonl: ['txt', 'url'],
  yaml: ['txt', 'url'],
  toml: ['txt', 'url'],
  // XML without a declaration is text to the sniffs.
  xml: ['txt'],
  // SubRip is written by many tools, some with a head the sniff does not know (no cue number).
  srt: ['txt'],
};

/** declared name -> detected results it accepts, itself included. Built once. */
const ACCEPTS = new Map<FormatName, ReadonlySet<string>>();
for (const [declared, extra] of Object.entries(ALSO_ACCEPTS)) {
  ACCEPTS.set(declared, new Set([declared, ...extra]));
}
for (const group of MUTUALLY_COMPATIBLE) {
  for (const declared of group) ACCEPTS.set(declared, new Set([...(ACCEPTS.get(declared) ?? []), ...group]));
}

/** Whether bytes detected as `detected` may be processed as the declared format (rules in the table above). */
export function isContentCompatible(declared: FormatName, detected: FormatName | undefined): boolean {
  const format = getFormat(declared);
  if (!format || detected === undefined) return false;
  const found = getFormat(detected)?.name ?? detected;
  return found === format.name || (ACCEPTS.get(format.name)?.has(found) ?? false);
}
