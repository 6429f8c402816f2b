/**
 * What ffprobe says of a Matroska or WebM file, from the Info and Tracks elements before the
 * first Cluster: the duration (Duration x TimestampScale), and per track its kind, codec (the
 * CodecID, mapped to ffmpeg's name), frame size and frame rate (DefaultDuration, which ffmpeg's
 * demuxer turns into avg_frame_rate), or sample rate and channels.
 *
 * Left to ffprobe: a file whose Info or Tracks is not in the first HEAD_BYTES, or has no
 * Duration (a live recording); attachments (ffprobe lists them as streams, and cover art as
 * video), a video track without DefaultDuration (ffprobe then measures the rate from packets),
 * HE-AAC, and any codec not in the table below.
 */
import { aacFacts } from './aac-config.js';
import type { HeaderFile } from './header-file.js';
import type { MediaProbe, MediaStream } from './runner.js';

export const MATROSKA_FORMAT_NAME = 'matroska,webm';

const ID = {
  ebml: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  info: 0x1549a966,
  timestampScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  codecId: 0x86,
  codecPrivate: 0x63a2,
  defaultDuration: 0x23e383,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
  audio: 0xe1,
  samplingFrequency: 0xb5,
  channels: 0x9f,
  cluster: 0x1f43b675,
} as const;
/** The Attachments element's ID: seen anywhere in the head (a SeekHead entry too), ffprobe decides. */
const ATTACHMENTS = Buffer.from([0x19, 0x41, 0xa4, 0x69]);
/** More children than a well-made element has: a longer list is not walked. */
const MAX_CHILDREN = 4096;

const CODECS: Record<string, { kind: MediaStream['kind']; codec: string }> = {
  'V_MPEG4/ISO/AVC': { kind: 'video', codec: 'h264' },
  'V_MPEGH/ISO/HEVC': { kind: 'video', codec: 'hevc' },
  V_VP8: { kind: 'video', codec: 'vp8' },
  V_VP9: { kind: 'video', codec: 'vp9' },
  V_AV1: { kind: 'video', codec: 'av1' },
  'V_MPEG4/ISO/ASP': { kind: 'video', codec: 'mpeg4' },
  A_AAC: { kind: 'audio', codec: 'aac' },
  A_OPUS: { kind: 'audio', codec: 'opus' },
  A_VORBIS: { kind: 'audio', codec: 'vorbis' },
  A_FLAC: { kind: 'audio', codec: 'flac' },
  'A_MPEG/L3': { kind: 'audio', codec: 'mp3' },
  A_AC3: { kind: 'audio', codec: 'ac3' },
  A_EAC3: { kind: 'audio', codec: 'eac3' },
  'S_TEXT/UTF8': { kind: 'subtitle', codec: 'subrip' },
  'S_TEXT/ASS': { kind: 'subtitle', codec: 'ass' },
  'S_TEXT/WEBVTT': { kind: 'subtitle', codec: 'webvtt' },
};
/** TrackType values ffprobe lists under these kinds. */
const TRACK_KINDS: Record<number, MediaStream['kind']> = { 1: 'video', 2: 'audio', 17: 'subtitle' };

interface Element {
  id: number;
  body: number;
  end: number;
}

/** An EBML variable-length integer at `at`: its value (marker bit kept for IDs) and length. */
function vint(bytes: Buffer, at: number, keepMarker: boolean): { value: number; length: number } | undefined {
  const first = bytes[at];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (at + length > bytes.length || (keepMarker && length > 4)) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    value = value * 256 + bytes[at + i]!;
    if (bytes[at + i] !== 0xff) allOnes = false;
  }
  // All ones is an unknown size (a live stream): not answerable from the header.
  if (!keepMarker && allOnes) return undefined;
  return { value, length };
}

/**
 * The elements from `start` to `end`. Strict (the default), the list must fill its parent
 * exactly: a lying size, an unknown one or too many children throws, and the caller falls back
 * to ffprobe rather than answer with a track missing. Loose (the Segment's children in the
 * head, which ends inside some element), it stops at the first element that does not fit.
 */
function elements(bytes: Buffer, start: number, end: number, strict = true): Element[] {
  const found: Element[] = [];
  for (let at = start; at < end; ) {
    const id = vint(bytes, at, true);
    const size = id && vint(bytes, at + id.length, false);
    const body = id && size ? at + id.length + size.length : end;
    if (!id || !size || body + size.value > end || found.length >= MAX_CHILDREN) {
      if (strict) throw new RangeError('An element does not fit its parent');
      return found;
    }
    found.push({ id: id.value, body, end: body + size.value });
    at = body + size.value;
  }
  return found;
}

function uint(bytes: Buffer, element: Element | undefined): number | undefined {
  if (!element) return undefined;
  const length = element.end - element.body;
  if (length === 0 || length > 6) return length === 0 ? 0 : undefined;
  return bytes.readUIntBE(element.body, length);
}

function float(bytes: Buffer, element: Element | undefined): number | undefined {
  if (!element) return undefined;
  const length = element.end - element.body;
  if (length === 4) return bytes.readFloatBE(element.body);
  if (length === 8) return bytes.readDoubleBE(element.body);
  return undefined;
}

const find = (list: Element[], id: number) => list.find((element) => element.id === id);

/** One TrackEntry as ffprobe lists it, or undefined when ffprobe must say. */
function track(bytes: Buffer, entry: Element, index: number): MediaStream | undefined {
  const fields = elements(bytes, entry.body, entry.end);
  const codecId = find(fields, ID.codecId);
  const known = codecId && CODECS[bytes.toString('latin1', codecId.body, codecId.end).replace(/\0+$/, '')];
  const type = uint(bytes, find(fields, ID.trackType));
  if (!known || type === undefined || TRACK_KINDS[type] !== known.kind) return undefined;
  const { kind, codec } = known;
  if (kind === 'video') {
    const video = find(fields, ID.video);
    const picture = video ? elements(bytes, video.body, video.end) : [];
    const width = uint(bytes, find(picture, ID.pixelWidth));
    const height = uint(bytes, find(picture, ID.pixelHeight));
    const frameNs = uint(bytes, find(fields, ID.defaultDuration));
    if (!width || !height || !frameNs) return undefined;
    const fps = 1e9 / frameNs;
    if (fps > 1000) return undefined;
    return { index, kind, codec, width, height, fps };
  }
  if (kind === 'audio') {
    const audio = find(fields, ID.audio);
    const sound = audio ? elements(bytes, audio.body, audio.end) : [];
    let sampleRate = float(bytes, find(sound, ID.samplingFrequency)) ?? 8000;
    let channels = uint(bytes, find(sound, ID.channels)) ?? 1;
    if (codec === 'aac') {
      const config = find(fields, ID.codecPrivate);
      const facts = config && aacFacts(bytes.subarray(config.body, config.end));
      if (!facts) return undefined;
      ({ sampleRate, channels } = facts);
    }
    // Opus decodes at 48 kHz whatever the track says; ffprobe reports that.
    if (codec === 'opus') sampleRate = 48000;
    if (!Number.isInteger(sampleRate) || sampleRate <= 0 || !channels) return undefined;
    return { index, kind, codec, sampleRate, channels };
  }
  return { index, kind, codec };
}

export async function probeMatroskaHeader(file: HeaderFile): Promise<MediaProbe | undefined> {
  const { head } = file;
  if (head.includes(ATTACHMENTS)) return undefined;
  const [ebml] = elements(head, 0, head.length, false);
  if (!ebml || ebml.id !== ID.ebml) return undefined;
  const docType = find(elements(head, ebml.body, ebml.end), ID.docType);
  const doc = docType && head.toString('latin1', docType.body, docType.end).replace(/\0+$/, '');
  if (doc !== 'matroska' && doc !== 'webm') return undefined;
  // The Segment's own size is often unknown or past the head: only its header is read here.
  const id = vint(head, ebml.end, true);
  if (id?.value !== ID.segment) return undefined;
  const sizeByte = head[ebml.end + id.length];
  if (!sizeByte) return undefined;
  const sizeLength = Math.clz32(sizeByte) - 23;
  const children = elements(head, ebml.end + id.length + sizeLength, head.length, false);
  const clusterAt = children.findIndex((element) => element.id === ID.cluster);
  const before = clusterAt === -1 ? children : children.slice(0, clusterAt);
  const info = find(before, ID.info);
  const tracks = find(before, ID.tracks);
  if (!info || !tracks) return undefined;
  const infoFields = elements(head, info.body, info.end);
  const scale = uint(head, find(infoFields, ID.timestampScale)) ?? 1_000_000;
  const duration = float(head, find(infoFields, ID.duration));
  if (!duration || duration <= 0 || !scale) return undefined;
  const streams: MediaStream[] = [];
  for (const entry of elements(head, tracks.body, tracks.end)) {
    if (entry.id !== ID.trackEntry) continue;
    const stream = track(head, entry, streams.length);
    if (!stream) return undefined;
    streams.push(stream);
  }
  if (streams.length === 0) return undefined;
  return { formatName: MATROSKA_FORMAT_NAME, durationSeconds: (duration * scale) / 1e9, streams };
}
