/**
 * A zipped web page (the 'htmlzip' format) as a PageSource: index.html at the zip's root, or in
 * its one top folder, served at http://fileconv.invalid/index.html and every other entry at
 * http://fileconv.invalid/<its path>, so the page's relative references (CSS, fonts, images,
 * frames) resolve inside the zip.
 *
 * Nothing but the zip can be read: a request is answered by looking its URL path up in the map
 * of the zip's entries, and by nothing else. The URL parser has already removed `..` segments
 * (`../../etc/passwd` arrives as /etc/passwd, which is no entry), entries whose own names climb
 * out are refused when the zip is opened, and every other origin is refused.
 *
 * The zip-bomb rules of office/zip-safety.ts apply, from the central directory, before anything
 * is inflated: entry count, total inflated size, ratio per entry. Entries are inflated only when
 * the page asks for them, each at most once (kept for repeated requests), and an entry that
 * inflates past its declared size fails the job as a bomb.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { FileconvError } from '../../core/errors.js';
import {
  checkDeclared,
  corruptZipError,
  DEFAULT_ZIP_LIMITS,
  openEntry,
  type ZipLimits,
  zipBombError,
} from '../../kit/zip-safety.js';
import {
  htmlContentType,
  type PageSource,
  REFUSED,
  SITE_ORIGIN,
  type SourceResponse,
} from './page-source.js';

/**
 * A page's assets are fonts and images, a few MiB together; a site zip inflating past 128 MiB is
 * refused (the office formats allow 1 GiB, a spreadsheet's rows being legitimately large). What a
 * job inflates is also what it holds in memory while the page renders.
 */
export const SITE_ZIP_LIMITS: ZipLimits = { ...DEFAULT_ZIP_LIMITS, maxUncompressedBytes: 128 * 1024 * 1024 };

/** Content types by extension: a stylesheet served as anything but text/css is ignored by the browser. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'application/xhtml+xml',
  css: 'text/css',
  js: 'text/javascript',
  mjs: 'text/javascript',
  json: 'application/json',
  txt: 'text/plain',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  ico: 'image/x-icon',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  eot: 'application/vnd.ms-fontobject',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
};

function contentType(path: string, body: Buffer): string {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const type = CONTENT_TYPES[extension] ?? 'application/octet-stream';
  return type === 'text/html' ? htmlContentType(body) : type;
}

/** An entry name that, read as a path, stays inside the zip (yauzl already refuses absolute ones). */
function staysInside(name: string): boolean {
  return !name.split('/').some((segment) => segment === '..' || segment === '.') && !name.startsWith('/');
}

/** Leftovers of the tools that made the zip, which do not count when looking for the one top folder. */
function isClutter(name: string): boolean {
  return name.startsWith('__MACOSX/') || (!name.includes('/') && name.startsWith('.'));
}

function noIndex(): FileconvError {
  return new FileconvError(
    'CORRUPT_INPUT',
    'The zip holds no index.html at its root or in its one top folder, so there is no page to render.',
    { details: { reason: 'no-index' } },
  );
}

/** The folder prefix of the site ('' or 'site/') and its page's name within it. */
function findIndex(names: readonly string[]): { prefix: string; page: string } {
  const isIndex = (name: string) => /^index\.html?$/i.test(name);
  const atRoot = names.filter((name) => !name.includes('/') && isIndex(name));
  if (atRoot.length > 0) return { prefix: '', page: atRoot.sort()[0]! };
  const relevant = names.filter((name) => !isClutter(name));
  const folders = new Set(relevant.map((name) => (name.includes('/') ? name.split('/')[0]! : '')));
  const [folder] = folders;
  if (folders.size !== 1 || !folder) throw noIndex();
  const prefix = `${folder}/`;
  const inFolder = relevant.map((name) => name.slice(prefix.length)).filter((name) => isIndex(name));
  if (inFolder.length === 0) throw noIndex();
  return { prefix, page: inFolder.sort()[0]! };
}

function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // autoClose off: entries are opened on demand, after the directory has been read.
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false },
      (error, zip) => (error ? reject(corruptZipError(error)) : resolve(zip)),
    );
  });
}

/** The central directory, every entry checked against `limits` before any is inflated. */
function readDirectory(zip: ZipFile, limits: ZipLimits): Promise<Map<string, Entry>> {
  if (zip.entryCount > limits.maxEntries) {
    return Promise.reject(
      zipBombError(`more than ${limits.maxEntries} entries`, { maxEntries: limits.maxEntries }),
    );
  }
  return new Promise((resolve, reject) => {
    const entries = new Map<string, Entry>();
    let count = 0;
    let declaredTotal = 0;
    zip.on('error', (error: unknown) => reject(corruptZipError(error)));
    zip.on('end', () => resolve(entries));
    zip.on('entry', (entry: Entry) => {
      count += 1;
      declaredTotal += entry.uncompressedSize;
      try {
        checkDeclared(entry, count, declaredTotal, limits);
      } catch (error) {
        reject(error);
        return;
      }
      if (!entry.fileName.endsWith('/') && staysInside(entry.fileName)) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.readEntry();
  });
}

/** One entry, inflated; a stream that yields more than the entry declared fails as a bomb. */
async function inflate(zip: ZipFile, entry: Entry): Promise<Buffer> {
  const stream = await openEntry(zip, entry);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // yauzl's validateEntrySizes: "too many bytes in the stream. expected N. got at least M"
    if (/too many bytes/.test(message)) {
      throw zipBombError(`entry '${entry.fileName}' inflates beyond its declared size`, {
        entry: entry.fileName,
      });
    }
    throw corruptZipError(error);
  }
  return Buffer.concat(chunks);
}

/** The zip entry path a request URL names, or undefined for another origin. */
function entryPath(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin !== SITE_ORIGIN) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname.slice(1));
  } catch {
    return undefined; // a malformed escape names no entry
  }
  return path === '' || path.endsWith('/') ? `${path}index.html` : path;
}

/**
 * Opens the zipped site at `path` (its directory read and checked, nothing inflated yet).
 * INPUT_LIMIT_EXCEEDED (reason 'zip-bomb') past `limits`, CORRUPT_INPUT for a broken zip or one
 * without a page, PASSWORD_PROTECTED for encrypted entries.
 */
export async function openZipSite(path: string, limits: Partial<ZipLimits> = {}): Promise<PageSource> {
  const zip = await openZip(path);
  let entries: Map<string, Entry>;
  let index: { prefix: string; page: string };
  try {
    entries = await readDirectory(zip, { ...SITE_ZIP_LIMITS, ...limits });
    index = findIndex([...entries.keys()]);
  } catch (error) {
    zip.close();
    throw error;
  }
  const inflated = new Map<string, Promise<Buffer>>();
  const read = (name: string, entry: Entry) => {
    let bytes = inflated.get(name);
    if (!bytes) {
      bytes = inflate(zip, entry);
      inflated.set(name, bytes);
    }
    return bytes;
  };
  return {
    open: async () => `${SITE_ORIGIN}/${encodeURI(index.page)}`,
    async respond(request): Promise<SourceResponse | typeof REFUSED> {
      const relative = entryPath(request.url());
      const name = relative === undefined ? undefined : index.prefix + relative;
      const entry = name === undefined ? undefined : entries.get(name);
      if (name === undefined || entry === undefined) return REFUSED;
      const body = await read(name, entry);
      return { status: 200, headers: { 'content-type': contentType(name, body) }, body };
    },
    close: () => zip.close(),
  };
}
