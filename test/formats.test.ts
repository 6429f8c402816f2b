/**
 * The format registry and its lookups, and detection against the real files in fixtures/.
 * Byte-level detection cases (synthetic containers, text sniffing) are in format-detection.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileconvError } from '../src/core/errors.js';
import { GENERIC_CONTAINERS } from '../src/core/formats/detect-containers.js';
import {
  DETECTION_BYTES,
  detectFormat,
  extensionOf,
  FORMAT_FAMILIES,
  FORMATS,
  type FormatDefinition,
  formatFromExtension,
  formatFromMime,
  formatsByFamily,
  getFormat,
  isContentCompatible,
  mimeTypeOf,
  requireFormat,
} from '../src/core/formats/index.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** The formats the registry must hold, per family, in order. */
const EXPECTED = {
  image: [
    'jpg',
    'png',
    'webp',
    'avif',
    'gif',
    'tiff',
    'heic',
    'heif',
    'svg',
    'bmp',
    'ico',
    ...['jxl', 'jp2', 'psd', 'dng', 'tga', 'qoi', 'pcx', 'ppm', 'pgm', 'pbm', 'exr', 'hdr', 'dds'],
    ...['sgi', 'xpm', 'pam'],
    'eps',
    'ps',
    'svgz',
    'emf',
    'wmf',
  ],
  video: ['mp4', 'webm', 'mkv', 'mov', 'avi', 'flv', 'wmv', 'mpeg', '3gp', 'ogv', 'm4v', 'ts'],
  audio: ['mp3', 'wav', 'ogg', 'flac', 'aac', 'm4a', 'opus', 'wma', 'aiff', 'ac3'],
  document: [
    'pdf',
    'docx',
    'doc',
    'odt',
    'ott',
    'dotx',
    'docm',
    'fodt',
    'sxw',
    'wpd',
    'odg',
    'pages',
    'vsdx',
    'rtf',
    'txt',
    'md',
    'html',
    'htmlzip',
    'url',
  ],
  spreadsheet: [
    'xlsx',
    'xls',
    'ods',
    'ots',
    'xltx',
    'xlsm',
    'fods',
    'xmlss',
    'slk',
    'dbf',
    'sxc',
    'csv',
    'tsv',
  ],
  presentation: ['pptx', 'ppt', 'odp', 'otp', 'potx', 'pptm', 'fodp', 'ppsx', 'sxi', 'key'],
  ebook: ['epub', 'mobi', 'azw3', 'fb2'],
  subtitle: ['srt', 'vtt', 'ass', 'ssa'],
  data: ['json', 'jsonl', 'yaml', 'toml', 'xml', 'ics', 'vcf'],
  font: ['ttf', 'otf', 'woff', 'woff2'],
  archive: ['zip', 'tar', 'tgz', 'tbz2', 'txz', '7z', 'rar'],
} as const;

/** Fixtures whose detected format differs from their extension's format, and why that is right. */
const DETECTED_AS: Record<string, string> = {
  'fixture.heif': 'heic', // a copy of fixture.heic: HEVC-coded, brand 'heic'
  'fixture.txt': 'txt',
  'fixture.md': 'txt', // Markdown, CSV and TSV are text without a signature
  'fixture.csv': 'txt',
  'fixture.tsv': 'txt',
  'fixture.json': 'txt',
  'fixture.jsonl': 'txt', // JSON Lines and YAML have no signature either
  'fixture.yaml': 'txt',
  'fixture.toml': 'txt',
  // LibreOffice writes the compound file's directory after 460 KB of streams, beyond the detection
  // head: only the container is recognised, and a declared (or .ppt-named) ppt is accepted.
  'fixture.ppt': 'cfb',
  // The tar inside a bzip2 or xz stream cannot be seen from a head: only the wrapper is recognised,
  // and a declared (or .tar.bz2/.tar.xz-named) tbz2/txz is accepted (registry-archive.ts).
  'fixture.tbz2': 'bz2',
  'fixture.txz': 'xz',
  // LibreOffice 7.4 writes a slide show with the presentation's content type: a pptx by its bytes
  // (PowerPoint's own .ppsx files name the slideshow type, which file-type reads).
  'fixture.ppsx': 'pptx',
  // Pages '09 is a zip whose only telling entry, index.xml, is deflated: declared, it is accepted.
  'fixture.pages': 'zip',
};

const each = (pick: (format: FormatDefinition) => readonly string[]) =>
  FORMATS.flatMap((format) => pick(format).map((key) => [key, format.name] as const));

describe('registry data', () => {
  it('holds exactly the expected formats, grouped by family', () => {
    expect(FORMATS.map((f) => f.name)).toEqual(FORMAT_FAMILIES.flatMap((family) => EXPECTED[family]));
    for (const family of FORMAT_FAMILIES) {
      expect(formatsByFamily(family).map((f) => f.name)).toEqual(EXPECTED[family]);
      expect(formatsByFamily(family).every((f) => f.family === family)).toBe(true);
    }
  });

  it.each(FORMATS.map((f) => [f.name, f] as const))('%s follows the conventions', (_name, format) => {
    expect(format.name).toMatch(/^[a-z0-9]+$/);
    expect(format.label.length).toBeGreaterThan(3);
    expect(format.extensions[0]).toBe(format.name);
    // Every other extension is also an alias, so getFormat accepts whatever a file is called.
    expect(format.aliases).toEqual(expect.arrayContaining(format.extensions.slice(1)));
    // One dot at most: the two-part extensions of compressed tars ('tar.gz').
    for (const key of [...format.aliases, ...format.extensions])
      expect(key).toMatch(/^[a-z0-9-]+(\.[a-z0-9]+)?$/);
    expect(format.mimeTypes.length).toBeGreaterThan(0);
    for (const mime of format.mimeTypes) expect(mime).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
    expect(Object.isFrozen(format) && Object.isFrozen(format.aliases)).toBe(true);
  });

  it('marks every video format, gif and webp as animated', () => {
    const animated = FORMATS.filter((f) => f.animated).map((f) => f.name);
    expect(animated).toEqual(['webp', 'gif', ...EXPECTED.video]);
  });

  it('has no name, alias, extension or MIME type claimed by two formats', () => {
    for (const keys of [
      each((f) => [f.name, ...f.aliases]),
      each((f) => f.extensions),
      each((f) => f.mimeTypes),
    ]) {
      const owners = new Map<string, Set<string>>();
      for (const [key, name] of keys) owners.set(key, (owners.get(key) ?? new Set()).add(name));
      const shared = [...owners].filter(([, names]) => names.size > 1).map(([key]) => key);
      expect(shared).toEqual([]);
    }
  });

  it('keeps the generic detection results out of the name space', () => {
    for (const token of GENERIC_CONTAINERS) expect(getFormat(token)).toBeUndefined();
  });
});

describe('lookups', () => {
  it.each(FORMATS.map((f) => [f.name] as const))(
    'getFormat finds %s by name, in any case, dotted',
    (name) => {
      expect(getFormat(name)?.name).toBe(name);
      expect(getFormat(` .${name.toUpperCase()} `)?.name).toBe(name);
      expect(requireFormat(name).name).toBe(name);
    },
  );

  it.each(each((f) => f.aliases))('alias %s resolves to %s', (alias, name) => {
    expect(getFormat(alias)?.name).toBe(name);
    expect(getFormat(alias.toUpperCase())?.name).toBe(name);
  });

  it.each(each((f) => f.extensions))('extension %s resolves to %s', (ext, name) => {
    expect(formatFromExtension(ext)?.name).toBe(name);
    expect(formatFromExtension(`.${ext}`)?.name).toBe(name);
    expect(formatFromExtension(`My File.v2.${ext.toUpperCase()}`)?.name).toBe(name);
    expect(formatFromExtension(`dir.d/sub\\photo.${ext}`)?.name).toBe(name);
    expect(getFormat(ext)?.name).toBe(name);
  });

  it.each(each((f) => f.mimeTypes))('MIME type %s resolves to %s', (mime, name) => {
    expect(formatFromMime(mime)?.name).toBe(name);
    expect(formatFromMime(` ${mime.toUpperCase()} ; charset=utf-8`)?.name).toBe(name);
  });

  it('answers the commonly used names', () => {
    const cases: Record<string, string> = {
      jpeg: 'jpg',
      jpe: 'jpg',
      tif: 'tiff',
      htm: 'html',
      markdown: 'md',
      text: 'txt',
      mpg: 'mpeg',
      '3gpp': '3gp',
      aif: 'aiff',
      aifc: 'aiff',
      matroska: 'mkv',
      quicktime: 'mov',
      m2ts: 'ts',
      keynote: 'key',
    };
    for (const [alias, name] of Object.entries(cases)) expect(getFormat(alias)?.name).toBe(name);
    expect(formatFromMime('audio/x-wav')?.name).toBe('wav');
    expect(formatFromMime('image/x-icon')?.name).toBe('ico');
    expect(formatFromMime('image/vnd.microsoft.icon')?.name).toBe('ico');
    expect(formatFromMime('text/csv; charset=utf-8')?.name).toBe('csv');
    expect(formatFromMime('audio/ogg; codecs=opus')?.name).toBe('ogg');
    // '.ts' is the MPEG transport stream: this registry knows media only.
    expect(formatFromExtension('clip.ts')?.name).toBe('ts');
    expect(mimeTypeOf('ts')).toBe('video/mp2t');
    // A compressed tar's two-part extension wins over its last part; a lone .gz is no archive.
    expect(formatFromExtension('backup.2024.TAR.GZ')?.name).toBe('tgz');
    expect(formatFromExtension('tar.xz')?.name).toBe('txz');
    expect(formatFromExtension('.tar.bz2')?.name).toBe('tbz2');
    expect(formatFromExtension('image.svg.gz')).toBeUndefined();
    expect(extensionOf('tar.gz')).toBe('tgz');
  });

  it('gives the preferred MIME type and extension, by name or alias', () => {
    for (const format of FORMATS) {
      expect(mimeTypeOf(format.name)).toBe(format.mimeTypes[0]);
      expect(extensionOf(format.name)).toBe(format.extensions[0]);
    }
    expect(mimeTypeOf('jpeg')).toBe('image/jpeg');
    expect(extensionOf('tif')).toBe('tiff');
  });

  it('handles unknown input', () => {
    for (const input of ['', ' ', '.', 'nope', 'image/png', 'photo.jpg'])
      expect(getFormat(input)).toBeUndefined();
    for (const input of ['', 'README', 'archive.', 'file.nope'])
      expect(formatFromExtension(input)).toBeUndefined();
    for (const input of ['', 'application/x-nope', 'image', ';'])
      expect(formatFromMime(input)).toBeUndefined();
    expect(mimeTypeOf('nope')).toBe('application/octet-stream');
    expect(extensionOf('nope')).toBe('bin');
  });

  it('requireFormat throws UNSUPPORTED_FORMAT naming the input', () => {
    let thrown: unknown;
    try {
      requireFormat('Flurb');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(FileconvError);
    expect(thrown).toMatchObject({ code: 'UNSUPPORTED_FORMAT', status: 415, details: { format: 'Flurb' } });
    expect((thrown as Error).message).toContain("'Flurb'");
  });
});

describe('fixtures', () => {
  const files = readdirSync(FIXTURES).filter((file) => file.startsWith('fixture'));

  it.each(FORMATS.map((f) => [f.name] as const))('fixture.%s exists', (name) => {
    expect(existsSync(join(FIXTURES, `fixture.${name}`))).toBe(true);
  });

  it.each(files.map((file) => [file] as const))('%s is detected from its real bytes', async (file) => {
    const declared = formatFromExtension(file);
    expect(declared, `${file} has a registered extension`).toBeDefined();
    const head = readFileSync(join(FIXTURES, file)).subarray(0, DETECTION_BYTES);
    const detected = await detectFormat(head);
    expect(detected).toBe(DETECTED_AS[file] ?? declared?.name);
    expect(isContentCompatible(declared?.name ?? '', detected)).toBe(true);
  });
});
