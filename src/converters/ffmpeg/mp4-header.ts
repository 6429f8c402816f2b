/**
 * What ffprobe says of an MP4, MOV, M4A or 3GP file, from its moov box: the duration (mvhd), and
 * per track its kind (hdlr), codec (the sample entry, and for mp4a the esds object type), frame
 * size and average frame rate (sample count over the stts durations, as ffmpeg computes it), or
 * sample rate and channels. The moov is found by walking the top-level boxes, so one at the end
 * costs a few small reads and one read of the moov (at most MAX_READ bytes).
 *
 * Left to ffprobe: fragmented files (moof, mvex), cover art (covr: ffprobe shows it as a video
 * stream), tracks other than video and sound (chapters, timecode), several sample entries in a
 * track, QuickTime v2 sound entries, PCM, HE-AAC, mp3, AC-3, Opus and FLAC in MP4 (see
 * AUDIO_CODECS), and any codec not in the tables below.
 */
import { aacFacts } from './aac-config.js';
import type { HeaderFile } from './header-file.js';
import type { MediaProbe, MediaStream } from './runner.js';

export const MOV_FORMAT_NAME = 'mov,mp4,m4a,3gp,3g2,mj2';
/** More top-level boxes than a well-made file has before its moov. */
const MAX_TOP_BOXES = 64;
/** More boxes in one parent than a well-made file has (its tracks, a track's boxes). */
const MAX_BOXES = 1024;
/** Top-level boxes a QuickTime file may open with instead of ftyp. */
const MOV_OPENERS = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot']);

const VIDEO_CODECS: Record<string, string> = {
  avc1: 'h264',
  avc3: 'h264',
  hvc1: 'hevc',
  hev1: 'hevc',
  av01: 'av1',
  vp09: 'vp9',
  jpeg: 'mjpeg',
  apcn: 'prores',
  apch: 'prores',
  apcs: 'prores',
  apco: 'prores',
  ap4h: 'prores',
  s263: 'h263',
};
/**
 * Sound entries whose channel count ffprobe reports as the entry states. Not mp3, AC-3, Opus or
 * FLAC: ffmpeg's muxer writes 2 channels in the entry of a mono mp3, and ffprobe takes those
 * codecs' channels from the stream itself.
 */
const AUDIO_CODECS: Record<string, string> = { alac: 'alac' };
/** esds object types: MPEG-4 Visual, AAC (MPEG-4 and the three MPEG-2 profiles). */
const OBJECT_TYPES: Record<number, string> = { 32: 'mpeg4', 64: 'aac', 102: 'aac', 103: 'aac', 104: 'aac' };

interface Box {
  type: string;
  /** Where the body starts and the box ends, in the buffer walked. */
  body: number;
  end: number;
}

/**
 * The boxes in `bytes` from `start` to `end`. Strict (the default), a box list must fill its
 * parent exactly: a lying size or too many boxes throws, and the caller falls back to ffprobe
 * rather than answer with a stream missing. Loose, it stops at the first box that does not fit
 * (a QuickTime sample entry may end in a 4-byte terminator).
 */
function boxes(bytes: Buffer, start: number, end: number, strict = true): Box[] {
  const found: Box[] = [];
  for (let at = start; at < end; ) {
    if (at + 8 > end || found.length >= MAX_BOXES) return fail(strict, found);
    let size = bytes.readUInt32BE(at);
    let body = at + 8;
    if (size === 1) {
      if (at + 16 > end) return fail(strict, found);
      size = Number(bytes.readBigUInt64BE(at + 8));
      body = at + 16;
    } else if (size === 0) size = end - at;
    if (size < body - at || at + size > end) return fail(strict, found);
    found.push({ type: bytes.toString('latin1', at + 4, at + 8), body, end: at + size });
    at += size;
  }
  return found;
}

function fail(strict: boolean, found: Box[]): Box[] {
  if (strict) throw new RangeError('A box does not fit its parent');
  return found;
}

/** The first child of `box` with `type`, following a path of types. */
function child(bytes: Buffer, box: Box | undefined, ...path: string[]): Box | undefined {
  let current = box;
  for (const type of path) {
    if (!current) return undefined;
    current = boxes(bytes, current.body, current.end).find((found) => found.type === type);
  }
  return current;
}

/** A full box's (timescale, duration) pair, as mvhd and mdhd hold it after their dates. */
function timing(bytes: Buffer, box: Box): { timescale: number; duration: number } {
  const version = bytes[box.body]!;
  return version === 1
    ? { timescale: bytes.readUInt32BE(box.body + 20), duration: Number(bytes.readBigUInt64BE(box.body + 24)) }
    : { timescale: bytes.readUInt32BE(box.body + 12), duration: bytes.readUInt32BE(box.body + 16) };
}

/** A descriptor's tag, body and end within an esds (lengths of up to four 7-bit bytes). */
function descriptor(bytes: Buffer, at: number, end: number) {
  if (at + 2 > end) return undefined;
  const tag = bytes[at]!;
  let length = 0;
  let i = at + 1;
  for (let n = 0; n < 4; n++, i++) {
    if (i >= end) return undefined;
    length = length * 128 + (bytes[i]! & 0x7f);
    if ((bytes[i]! & 0x80) === 0) break;
  }
  const body = i + 1;
  return body + length <= end ? { tag, body, end: body + length } : undefined;
}

/** The object type and decoder config from an esds box (ES -> DecoderConfig -> DecSpecificInfo). */
function esdsConfig(bytes: Buffer, esds: Box): { objectType: number; config: Buffer } | undefined {
  const es = descriptor(bytes, esds.body + 4, esds.end);
  if (es?.tag !== 0x03) return undefined;
  const flags = bytes[es.body + 2]!;
  let at = es.body + 3;
  if (flags & 0x80) at += 2;
  if (flags & 0x40) at += 1 + bytes[at]!;
  if (flags & 0x20) at += 2;
  const decoder = descriptor(bytes, at, es.end);
  if (decoder?.tag !== 0x04) return undefined;
  const specific = descriptor(bytes, decoder.body + 13, decoder.end);
  const config = specific?.tag === 0x05 ? bytes.subarray(specific.body, specific.end) : Buffer.alloc(0);
  return { objectType: bytes[decoder.body]!, config };
}

/** One track as ffprobe lists it, or undefined when ffprobe must say. */
function track(bytes: Buffer, trak: Box, index: number): MediaStream | undefined {
  const mdia = child(bytes, trak, 'mdia');
  const handler = child(bytes, mdia, 'hdlr');
  const mdhd = child(bytes, mdia, 'mdhd');
  const stbl = child(bytes, mdia, 'minf', 'stbl');
  const stsd = child(bytes, stbl, 'stsd');
  if (!handler || !mdhd || !stbl || !stsd || stsd.body + 8 > stsd.end) return undefined;
  if (bytes.readUInt32BE(stsd.body + 4) !== 1) return undefined;
  const [entry] = boxes(bytes, stsd.body + 8, stsd.end, false);
  if (!entry) return undefined;
  const kind = bytes.toString('latin1', handler.body + 8, handler.body + 12);
  // A sample entry's child boxes follow its fixed fields: 78 bytes for video, 28 (v0) or 44 (v1) for sound.
  const fixed = kind === 'vide' ? 78 : bytes.readUInt16BE(entry.body + 8) === 1 ? 44 : 28;
  // QuickTime puts an mp4a entry's esds inside a 'wave' box.
  const esds = () => {
    const children = boxes(bytes, entry.body + fixed, entry.end, false);
    const wave = children.find((found) => found.type === 'wave');
    const all = wave ? [...children, ...boxes(bytes, wave.body, wave.end, false)] : children;
    const box = all.find((found) => found.type === 'esds');
    return box && esdsConfig(bytes, box);
  };
  if (kind === 'vide') {
    if (entry.body + fixed > entry.end) return undefined;
    const codec =
      VIDEO_CODECS[entry.type] ?? (entry.type === 'mp4v' ? OBJECT_TYPES[esds()?.objectType ?? 0] : undefined);
    const width = bytes.readUInt16BE(entry.body + 24);
    const height = bytes.readUInt16BE(entry.body + 26);
    const fps = frameRate(bytes, child(bytes, stbl, 'stts'), timing(bytes, mdhd).timescale);
    if (!codec || !width || !height || !fps) return undefined;
    return { index, kind: 'video', codec, width, height, fps };
  }
  if (kind === 'soun') {
    if (entry.body + fixed > entry.end) return undefined;
    const version = bytes.readUInt16BE(entry.body + 8);
    if (version > 1) return undefined;
    let channels = bytes.readUInt16BE(entry.body + 16);
    let sampleRate = bytes.readUInt16BE(entry.body + 24);
    let codec = AUDIO_CODECS[entry.type];
    if (entry.type === 'mp4a') {
      const found = esds();
      codec = OBJECT_TYPES[found?.objectType ?? 0];
      if (codec === 'aac') {
        const facts = found && aacFacts(found.config);
        if (!facts) return undefined;
        ({ channels, sampleRate } = facts);
      }
      if (codec !== 'aac') return undefined;
    }
    if (!codec || !channels || !sampleRate) return undefined;
    return { index, kind: 'audio', codec, sampleRate, channels };
  }
  return undefined;
}

/** Frames per second as ffmpeg's mov demuxer computes avg_frame_rate: samples over their durations. */
function frameRate(bytes: Buffer, stts: Box | undefined, timescale: number): number | undefined {
  if (!stts || stts.body + 8 > stts.end || timescale === 0) return undefined;
  const entries = bytes.readUInt32BE(stts.body + 4);
  if (stts.body + 8 + entries * 8 > stts.end) return undefined;
  let samples = 0;
  let duration = 0;
  for (let i = 0, at = stts.body + 8; i < entries; i++, at += 8) {
    const count = bytes.readUInt32BE(at);
    samples += count;
    duration += count * bytes.readUInt32BE(at + 4);
  }
  const fps = duration > 0 ? (samples * timescale) / duration : 0;
  return fps > 0 && fps <= 1000 ? fps : undefined;
}

/** Where the moov box is: walking the top-level boxes, from the head or by small reads beyond it. */
async function findMoov(file: HeaderFile, quicktime: boolean): Promise<Buffer | undefined> {
  const { head, size } = file;
  let at = 0;
  for (let count = 0; count < MAX_TOP_BOXES && at + 8 <= size; count++) {
    const header =
      at + 16 <= head.length ? head.subarray(at, at + 16) : await file.read(at, Math.min(16, size - at));
    if (!header || header.length < 8) return undefined;
    const type = header.toString('latin1', 4, 8);
    if (count === 0 && type !== 'ftyp' && !(quicktime && MOV_OPENERS.has(type))) return undefined;
    let length = header.readUInt32BE(0);
    if (length === 1 && header.length >= 16) length = Number(header.readBigUInt64BE(8));
    else if (length === 0) length = size - at;
    // A box past the end of the file: truncated, which ffmpeg notices when it reads the samples.
    if (length < 8 || at + length > size) return undefined;
    if (type === 'moof') return undefined;
    if (type === 'moov') return file.read(at, length);
    at += length;
  }
  return undefined;
}

export async function probeMp4Header(file: HeaderFile, quicktime: boolean): Promise<MediaProbe | undefined> {
  const bytes = await findMoov(file, quicktime);
  if (!bytes) return undefined;
  const moov: Box = { type: 'moov', body: 8, end: bytes.length };
  if (bytes.includes('covr') || bytes.includes('mvex')) return undefined;
  const children = boxes(bytes, moov.body, moov.end);
  const mvhd = children.find((box) => box.type === 'mvhd');
  if (!mvhd) return undefined;
  const { timescale, duration } = timing(bytes, mvhd);
  if (timescale === 0 || duration === 0) return undefined;
  const streams: MediaStream[] = [];
  for (const trak of children.filter((box) => box.type === 'trak')) {
    const stream = track(bytes, trak, streams.length);
    if (!stream) return undefined;
    streams.push(stream);
  }
  if (streams.length === 0) return undefined;
  return { formatName: MOV_FORMAT_NAME, durationSeconds: duration / timescale, streams };
}
