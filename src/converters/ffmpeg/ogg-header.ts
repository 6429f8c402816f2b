/**
 * What ffprobe says of an Ogg file holding one Vorbis or Opus stream: its codec, rate and
 * channels from the identification header on the first page, and the duration from the
 * granule position of the last page. A multiplexed or chained file
 * (another stream's page anywhere in the bytes read), a last page without the end-of-stream flag
 * (a truncated file), cover art in the comments (ffprobe shows it as a video stream) and other
 * codecs (FLAC, Speex, Theora) are left to ffprobe.
 */
import type { HeaderFile } from './header-file.js';
import type { MediaProbe } from './runner.js';

const BEGIN_OF_STREAM = 0x02;
const END_OF_STREAM = 0x04;
/** The tail read for the last page: a page is at most 65,307 bytes. */
const TAIL_BYTES = 128 * 1024;
const OPUS_RATE = 48000;

interface Page {
  at: number;
  flags: number;
  granule: bigint;
  serial: number;
  /** Header and body together. */
  length: number;
}

/** The page starting at `at` in `bytes`, when its header and body are whole there. */
function pageAt(bytes: Buffer, at: number): Page | undefined {
  if (at + 27 > bytes.length || bytes.toString('latin1', at, at + 4) !== 'OggS' || bytes[at + 4] !== 0)
    return undefined;
  const segments = bytes[at + 26]!;
  if (at + 27 + segments > bytes.length) return undefined;
  let body = 0;
  for (let i = 0; i < segments; i++) body += bytes[at + 27 + i]!;
  const length = 27 + segments + body;
  if (at + length > bytes.length) return undefined;
  return {
    at,
    flags: bytes[at + 5]!,
    granule: bytes.readBigInt64LE(at + 6),
    serial: bytes.readUInt32LE(at + 14),
    length,
  };
}

/** The codec facts from the first packet, or undefined for a codec left to ffprobe. */
function identify(packet: Buffer) {
  if (packet.length >= 16 && packet[0] === 1 && packet.toString('latin1', 1, 7) === 'vorbis') {
    const sampleRate = packet.readUInt32LE(12);
    return { codec: 'vorbis', channels: packet[11]!, sampleRate, granuleRate: sampleRate };
  }
  if (packet.length >= 19 && packet.toString('latin1', 0, 8) === 'OpusHead') {
    // Opus always decodes at 48 kHz, which ffprobe reports whatever the input rate field says.
    return { codec: 'opus', channels: packet[9]!, sampleRate: OPUS_RATE, granuleRate: OPUS_RATE };
  }
  return undefined;
}

export async function probeOggHeader(file: HeaderFile): Promise<MediaProbe | undefined> {
  const { head, size } = file;
  const first = pageAt(head, 0);
  if (!first || first.flags !== BEGIN_OF_STREAM) return undefined;
  const codec = identify(head.subarray(first.at + 27 + head[26]!, first.at + first.length));
  if (!codec || codec.channels === 0 || codec.sampleRate === 0) return undefined;
  if (/metadata_block_picture|coverart/i.test(head.toString('latin1'))) return undefined;
  // Every whole page in the head must belong to the one stream.
  for (let page: Page | undefined = first; page; page = pageAt(head, page.at + page.length)) {
    if (page.serial !== first.serial) return undefined;
  }
  const tailStart = Math.max(0, size - TAIL_BYTES);
  const tail = await file.read(tailStart, size - tailStart);
  if (!tail) return undefined;
  // The last page: the last 'OggS' whose page ends exactly at the end of the file.
  const last = pageAt(tail, tail.lastIndexOf('OggS'));
  if (!last || last.at + last.length !== tail.length || last.serial !== first.serial) return undefined;
  if ((last.flags & END_OF_STREAM) === 0 || last.granule <= 0n) return undefined;
  // A page of another stream in the tail: a multiplexed file after all.
  for (let at = tail.indexOf('OggS'); at !== -1 && at < last.at; at = tail.indexOf('OggS', at + 4)) {
    const page = pageAt(tail, at);
    if (page && page.serial !== first.serial) return undefined;
  }
  // ffprobe counts the pre-skip samples in the duration; so do we.
  const samples = Number(last.granule);
  if (samples <= 0) return undefined;
  return {
    formatName: 'ogg',
    durationSeconds: samples / codec.granuleRate,
    streams: [
      {
        index: 0,
        kind: 'audio',
        codec: codec.codec,
        sampleRate: codec.sampleRate,
        channels: codec.channels,
      },
    ],
  };
}
