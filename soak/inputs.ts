/**
 * What the soak's clients send: real files of every family fileconv converts (small and large
 * images, office documents through LibreOffice, HTML through Chromium, spreadsheets, PDF, audio,
 * video), and about one in ten bad ones (truncated, lying about their format, bombs, locked).
 * Each comes with how its result is recognised independently of fileconv (file-type reads the
 * bytes), so a "completed" that delivered the wrong thing counts as a failure.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { frameBombGif } from '../test/hostile/frame-bomb-gif.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures');

export interface SoakInput {
  /** What the statistics group by: "image", "document", "video", ..., or "bad". */
  kind: string;
  /** Shown in reports: "jpg->webp". */
  label: string;
  fileName: string;
  contentType: string;
  bytes: Buffer;
  sourceFormat: string;
  targetFormat: string;
  /** How often it is picked, relative to the others. */
  weight: number;
  /** A bad input: it must be refused with a 4xx code (or, for a bomb a plan may afford, converted). */
  bad: boolean;
  /**
   * Text a text result must hold: the xlsx's last cell comes from its shared strings, which a
   * short exceljs walk lost without an error (empty text cells, found by a stress run).
   */
  mustContain?: string;
}

const fixture = (name: string) => readFile(path.join(FIXTURES, name));

/** A photo-like JPEG of `width` x `height`: noise, so it does not compress to nothing. */
function noisyJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#7a8',
      noise: { type: 'gaussian', mean: 120, sigma: 40 },
    },
  })
    .jpeg({ quality: 85 })
    .toBuffer();
}

export async function loadInputs(): Promise<SoakInput[]> {
  const [jpg, png, docx, odt, pptx, xlsx, csv, ods, pdf, wav, mp3, mp4, html, encrypted, xmlBomb] =
    await Promise.all(
      [
        'fixture.jpg',
        'fixture.png',
        'fixture.docx',
        'fixture.odt',
        'fixture.pptx',
        'fixture.xlsx',
        'fixture.csv',
        'fixture.ods',
        'fixture.pdf',
        'fixture.wav',
        'fixture.mp3',
        'fixture.mp4',
        'fixture.html',
        'bad/encrypted.pdf',
        'bad/xml-bomb.xml',
      ].map(fixture),
    );
  const large = await noisyJpeg(2400, 1800);
  const good = (
    kind: string,
    bytes: Buffer,
    sourceFormat: string,
    targetFormat: string,
    contentType: string,
    weight: number,
  ): SoakInput => ({
    kind,
    label: `${sourceFormat}->${targetFormat}`,
    fileName: `input.${sourceFormat}`,
    contentType,
    bytes,
    sourceFormat,
    targetFormat,
    weight,
    bad: false,
  });
  const bad = (
    label: string,
    bytes: Buffer,
    fileName: string,
    targetFormat: string,
    contentType: string,
    weight: number,
  ): SoakInput => ({
    kind: 'bad',
    label,
    fileName,
    contentType,
    bytes,
    sourceFormat: path.extname(fileName).slice(1),
    targetFormat,
    weight,
    bad: true,
  });
  return [
    good('image', jpg!, 'jpg', 'webp', 'image/jpeg', 14),
    good('image', png!, 'png', 'jpg', 'image/png', 8),
    { ...good('image-large', large, 'jpg', 'webp', 'image/jpeg', 6), label: 'jpg->webp (4 MP)' },
    good('document', docx!, 'docx', 'pdf', 'application/octet-stream', 8),
    good('document', odt!, 'odt', 'docx', 'application/vnd.oasis.opendocument.text', 3),
    good('document', pptx!, 'pptx', 'pdf', 'application/octet-stream', 3),
    good('html', html!, 'html', 'pdf', 'text/html', 4),
    {
      ...good('spreadsheet', xlsx!, 'xlsx', 'csv', 'application/octet-stream', 4),
      mustContain: 'gamma,-3,café',
    },
    good('spreadsheet', csv!, 'csv', 'xlsx', 'text/csv', 3),
    good('spreadsheet', ods!, 'ods', 'xlsx', 'application/vnd.oasis.opendocument.spreadsheet', 2),
    good('pdf', pdf!, 'pdf', 'png', 'application/pdf', 3),
    good('audio', wav!, 'wav', 'mp3', 'audio/wav', 4),
    good('audio', mp3!, 'mp3', 'ogg', 'audio/mpeg', 2),
    good('video', mp4!, 'mp4', 'webm', 'video/mp4', 3),
    // About one pick in ten is bad.
    bad(
      'truncated jpg',
      large.subarray(0, Math.floor(large.length * 0.4)),
      'cut.jpg',
      'png',
      'image/jpeg',
      2,
    ),
    bad(
      'text named .png',
      Buffer.from('Not a picture at all.\n'.repeat(40)),
      'photo.png',
      'webp',
      'image/png',
      2,
    ),
    bad('frame-bomb gif', frameBombGif(3000), 'bomb.gif', 'mp4', 'image/gif', 1),
    bad('xml bomb', xmlBomb!, 'bomb.xml', 'json', 'application/xml', 1),
    bad('encrypted pdf', encrypted!, 'locked.pdf', 'png', 'application/pdf', 1),
  ];
}

/** Picks an input at random by weight. */
export function pickInput(inputs: readonly SoakInput[], random: () => number = Math.random): SoakInput {
  const total = inputs.reduce((sum, input) => sum + input.weight, 0);
  let left = random() * total;
  for (const input of inputs) {
    left -= input.weight;
    if (left < 0) return input;
  }
  return inputs[inputs.length - 1]!;
}

/** What file-type may call a correct result of each target (text targets have no signature). */
const SIGNATURES: Record<string, readonly string[]> = {
  webp: ['webp'],
  jpg: ['jpg'],
  png: ['png'],
  pdf: ['pdf'],
  docx: ['docx', 'zip'],
  xlsx: ['xlsx', 'zip'],
  mp3: ['mp3'],
  ogg: ['ogg', 'oga', 'opus'],
  webm: ['webm', 'mkv'],
  mp4: ['mp4', 'm4v'],
};
const TEXT_TARGETS = new Set(['csv', 'json', 'txt', 'md']);

/** Why `bytes` is not a `target` file (holding `mustContain`, for text), or null when it is one. */
export async function resultProblem(
  bytes: Buffer,
  target: string,
  mustContain?: string,
): Promise<string | null> {
  if (bytes.length === 0) return 'the result is empty';
  if (TEXT_TARGETS.has(target)) {
    const text = bytes.toString('utf8');
    if (text.includes('\uFFFD') || text.includes('\0')) return `the ${target} result is not UTF-8 text`;
    return mustContain === undefined || text.includes(mustContain)
      ? null
      : `the ${target} result lacks ${JSON.stringify(mustContain)}`;
  }
  const detected = await fileTypeFromBuffer(bytes);
  const allowed = SIGNATURES[target] ?? [target];
  return detected && allowed.includes(detected.ext)
    ? null
    : `the ${target} result reads as ${detected?.ext ?? 'nothing known'}`;
}
