/**
 * What a converted file holds, read by a tool other than the one that wrote it: its words
 * (pdftotext, Ghostscript's txtwrite, the text of a zip's entries), its picture's size
 * (ImageMagick's identify, ffprobe where identify has no coder), its audio and video streams
 * (ffprobe), a font's family (fontconfig) and an archive's entries (GNU tar, bsdtar for 7z).
 * For the every-target test: each answer is what the result carries, never "bytes came back".
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { readZip } from './zip.js';

const run = promisify(execFile);

/** stdout of `command`, as text ('' when it fails: the caller's check then fails with its own words). */
export async function output(command: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run(command, [...args], { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' });
    return stdout;
  } catch {
    return '';
  }
}

/** The words a file of `format` holds as text, by a reader that did not write it. */
export async function wordsOf(path: string, format: string): Promise<string> {
  const bytes = await readFile(path);
  if (format === 'pdf') return output('pdftotext', ['-q', path, '-']);
  if (format === 'eps' || format === 'ps') {
    return output('gs', [
      '-q',
      '-dNOPAUSE',
      '-dBATCH',
      '-dSAFER',
      '-sDEVICE=txtwrite',
      '-sOutputFile=-',
      path,
    ]);
  }
  if (isZip(bytes)) {
    const entries = await readZip(path);
    return [...entries.values()].map((entry) => markupless(entry.toString('utf8'))).join('\n');
  }
  // Text formats, and binary ones that keep their strings as bytes (xls, doc, dbf): both byte
  // readings, since Office's binary formats hold some strings as UTF-16.
  return `${markupless(bytes.toString('utf8'))}\n${bytes.toString('utf16le')}`;
}

function isZip(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'));
}

/** Text with XML/HTML tags replaced by spaces and the common entities decoded. */
function markupless(text: string): string {
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)));
}

/** Width and height of a picture's first frame (identify, else ffprobe); undefined when unreadable. */
export async function pictureSize(path: string): Promise<{ width: number; height: number } | undefined> {
  const identified = (await output('identify', ['-format', '%w %h\\n', `${path}[0]`])).split('\n')[0] ?? '';
  const probed = (
    await output('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'stream=width,height',
      '-of',
      'csv=p=0:s=x',
      path,
    ])
  ).split('\n')[0];
  for (const [width, height] of [identified.split(' '), (probed ?? '').split('x')]) {
    const size = { width: Number(width), height: Number(height) };
    if (size.width > 0 && size.height > 0) return size;
  }
  return undefined;
}

/** A drawing's SVG text (gunzipped for svgz). */
export async function svgText(path: string): Promise<string> {
  const bytes = await readFile(path);
  return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** A PDF's page count (pdfinfo); 0 when unreadable. */
export async function pdfPages(path: string): Promise<number> {
  return Number(/^Pages:\s+(\d+)/m.exec(await output('pdfinfo', [path]))?.[1] ?? 0);
}

/** The PostScript bounding box's area (Ghostscript's bbox device); 0 for a blank or unreadable page. */
export async function postscriptArea(path: string): Promise<number> {
  let stderr = '';
  try {
    ({ stderr } = await run('gs', ['-q', '-dNOPAUSE', '-dBATCH', '-dSAFER', '-sDEVICE=bbox', path], {
      encoding: 'utf8',
    }));
  } catch {
    return 0;
  }
  const box = /%%HiResBoundingBox:\s+([\d.-]+) ([\d.-]+) ([\d.-]+) ([\d.-]+)/.exec(stderr);
  if (!box) return 0;
  const [x0, y0, x1, y1] = box.slice(1).map(Number) as [number, number, number, number];
  return (x1 - x0) * (y1 - y0);
}

/** A media file's streams by kind with their seconds and packets (ffprobe counting packets). */
export async function mediaStreams(path: string): Promise<{ kind: string; packets: number }[]> {
  const json = await output('ffprobe', [
    '-v',
    'error',
    '-count_packets',
    '-show_entries',
    'stream=codec_type,nb_read_packets',
    '-of',
    'json',
    path,
  ]);
  if (!json) return [];
  const { streams = [] } = JSON.parse(json) as {
    streams?: { codec_type: string; nb_read_packets?: string }[];
  };
  return streams.map((stream) => ({ kind: stream.codec_type, packets: Number(stream.nb_read_packets ?? 0) }));
}

/** A font's family name (fontconfig's fc-scan); '' when unreadable. */
export async function fontFamily(path: string): Promise<string> {
  return (await output('fc-scan', ['--format', '%{family}', path])).trim();
}

/** An archive's file entries, sorted (GNU tar for the tar family, bsdtar for 7z and zip). */
export async function archiveEntries(path: string, format: string): Promise<string[]> {
  const listing = ['tar', 'tgz', 'tbz2', 'txz'].includes(format)
    ? await output('tar', ['-tf', path])
    : await output('bsdtar', ['-tf', path]);
  return listing
    .split('\n')
    .filter((name) => name !== '' && !name.endsWith('/'))
    .sort();
}
