/**
 * Reading a subtitle file as text: bounded in size, decoded from its charset (UTF-8 or UTF-16
 * with a byte-order mark; the `charset` option for 8-bit files, windows-1252 when unnamed and
 * the bytes are not UTF-8, as Windows tools write SubRip), and checked to really be the declared
 * format from its head, so a lying extension is caught here too when the converter is used
 * directly. The engine's detection does the same for uploads; this is the second line.
 */
import { readFile, stat } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { assertNotEmpty } from '../../core/file-size.js';
import { sniffSubRip, sniffSubStation } from '../../core/formats/detect-data-text.js';

export type SubtitleFormat = 'srt' | 'vtt' | 'ass' | 'ssa';
export const SUBTITLE_FORMATS: readonly SubtitleFormat[] = ['srt', 'vtt', 'ass', 'ssa'];

const SRT_TIMING = /^\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}[ \t]*-->[ \t]*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}/m;

/** Largest subtitle file read by default: a feature film's SubRip is 50-150 KB. */
export const DEFAULT_MAX_SUBTITLE_BYTES = 10 * 1024 * 1024;

/** What the text's head says it is, or undefined. */
export function subtitleKind(text: string): SubtitleFormat | undefined {
  if (/^WEBVTT(?:[ \t\r\n]|$)/.test(text)) return 'vtt';
  return sniffSubRip(text) ?? sniffSubStation(text);
}

function decoderFor(charset: string): InstanceType<typeof TextDecoder> {
  try {
    return new TextDecoder(charset, { fatal: false });
  } catch (error) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `Unknown charset '${charset}' (use a name such as windows-1252, iso-8859-2, shift_jis)`,
      {
        cause: error,
        details: { option: 'charset' },
      },
    );
  }
}

/** The bytes as text: a byte-order mark wins, then `charset`, then UTF-8, else windows-1252. */
export function decodeSubtitle(bytes: Uint8Array, charset: string | undefined): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  if (charset !== undefined)
    return decoderFor(charset)
      .decode(bytes)
      .replace(/^\uFEFF/, '');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/** The file as text of the `declared` subtitle format; CONTENT_MISMATCH or CORRUPT_INPUT otherwise. */
export async function readSubtitle(
  path: string,
  declared: SubtitleFormat,
  charset: string | undefined,
  maxBytes: number,
): Promise<string> {
  const { size } = await stat(path);
  if (size > maxBytes) {
    throw new FileconvError(
      'INPUT_LIMIT_EXCEEDED',
      `Subtitle input is limited to ${maxBytes} bytes; this file has ${size}`,
      { details: { maxBytes, size } },
    );
  }
  assertNotEmpty(size);
  const bytes = await readFile(path);
  if (bytes.subarray(0, 4096).some((byte) => byte === 0) && bytes[0] !== 0xff && bytes[0] !== 0xfe) {
    throw new FileconvError('CONTENT_MISMATCH', `The file was declared ${declared} but it is not text`, {
      details: { declared },
    });
  }
  const text = decodeSubtitle(bytes, charset);
  const kind = subtitleKind(text);
  const substation = (format: string | undefined) => format === 'ass' || format === 'ssa';
  // SubRip without cue numbers is still read by ffmpeg's demuxer: its timing lines are enough.
  const looseSubRip = declared === 'srt' && kind === undefined && SRT_TIMING.test(text.slice(0, 4096));
  const compatible = kind === declared || (substation(kind) && substation(declared)) || looseSubRip;
  if (!compatible) {
    throw new FileconvError(
      kind ? 'CONTENT_MISMATCH' : 'CORRUPT_INPUT',
      kind
        ? `The file was declared ${declared} but its content is ${kind}`
        : `The file is not ${declared} subtitles: its first lines are not a ${declared} header or cue`,
      { details: { declared, detected: kind ?? null } },
    );
  }
  return text;
}

/** How many cues a subtitle text holds (what a converted file is checked by). */
export function countCues(text: string, format: SubtitleFormat): number {
  if (format === 'ass' || format === 'ssa') return text.match(/^Dialogue:/gm)?.length ?? 0;
  return text.match(/^[^\n]*-->[^\n]*$/gm)?.length ?? 0;
}

/**
 * A WebVTT text with its cues alone: NOTE (comments), STYLE (CSS) and REGION blocks dropped.
 * ffmpeg 5's WebVTT reader takes a STYLE block for a broken cue and then reads none of the
 * file's cues (a real file gave "holds no subtitle cues"); browsers skip such blocks, and the
 * targets here cannot carry their CSS anyway. Blocks are separated by blank lines, which a cue
 * never contains.
 */
export function vttCuesOnly(text: string): string {
  const blocks = text.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n(?:[ \t]*\n)*/);
  const [header = 'WEBVTT', ...rest] = blocks;
  const cues = rest.filter((block) => !/^(?:NOTE|STYLE|REGION)(?:[ \t\n]|$)/.test(block));
  return `${[header, ...cues].join('\n\n')}\n`;
}
