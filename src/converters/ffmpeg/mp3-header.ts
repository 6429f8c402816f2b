/**
 * What ffprobe says of an MP3 file, from its first frame and that frame's Xing/Info or VBRI
 * header: one mp3 stream, its rate and channels, and the duration the frame count gives (LAME
 * and ffmpeg write the header in CBR files too). Without such a header ffprobe estimates the
 * duration from the bit rate, which a VBR file makes wrong: those, an ID3 tag holding a picture
 * (ffprobe shows it as a video stream), junk before the first frame and MPEG layers I and II are
 * left to ffprobe.
 */
import type { HeaderFile } from './header-file.js';
import type { MediaProbe } from './runner.js';

/** Sample rates by MPEG version bits (0: 2.5, 2: 2, 3: 1) and rate index. */
const RATES: Record<number, readonly number[]> = {
  0: [11025, 12000, 8000],
  2: [22050, 24000, 16000],
  3: [44100, 48000, 32000],
};
const LAYER_3 = 1;
const MONO = 3;

/** Where the ID3v2 tag (if any) ends, or undefined when it holds a picture or passes the head. */
function afterId3(head: Buffer): number | undefined {
  if (head.length < 10 || head.toString('latin1', 0, 3) !== 'ID3') return 0;
  const syncsafe = (head[6]! << 21) | (head[7]! << 14) | (head[8]! << 7) | head[9]!;
  const footer = (head[5]! & 0x10) !== 0 ? 10 : 0;
  const end = 10 + syncsafe + footer;
  if (end + 4 > head.length) return undefined;
  const tag = head.subarray(10, end);
  // APIC (v2.3, v2.4) and PIC (v2.2) frames are cover art; the search errs only toward ffprobe.
  if (tag.includes('APIC') || tag.includes('PIC')) return undefined;
  return end;
}

export async function probeMp3Header(file: HeaderFile): Promise<MediaProbe | undefined> {
  const { head } = file;
  const at = afterId3(head);
  if (at === undefined || at + 4 > head.length) return undefined;
  const header = head.readUInt32BE(at);
  if (header >>> 21 !== 0x7ff) return undefined;
  const version = (header >>> 19) & 3;
  const layer = (header >>> 17) & 3;
  const rate = RATES[version]?.[(header >>> 10) & 3];
  const mode = (header >>> 6) & 3;
  if (layer !== LAYER_3 || rate === undefined) return undefined;
  const mpeg1 = version === 3;
  const channels = mode === MONO ? 1 : 2;
  const samplesPerFrame = mpeg1 ? 1152 : 576;
  // The Xing/Info header follows the side information; VBRI always sits 32 bytes in.
  const sideInfo = mpeg1 ? (channels === 1 ? 17 : 32) : channels === 1 ? 9 : 17;
  const xing = at + 4 + sideInfo;
  const vbri = at + 4 + 32;
  let frames: number | undefined;
  const tag = head.toString('latin1', xing, xing + 4);
  if ((tag === 'Xing' || tag === 'Info') && xing + 12 <= head.length) {
    const flags = head.readUInt32BE(xing + 4);
    if ((flags & 1) !== 0) frames = head.readUInt32BE(xing + 8);
  } else if (head.toString('latin1', vbri, vbri + 4) === 'VBRI' && vbri + 18 <= head.length) {
    frames = head.readUInt32BE(vbri + 14);
  }
  if (!frames) return undefined;
  return {
    formatName: 'mp3',
    durationSeconds: (frames * samplesPerFrame) / rate,
    streams: [{ index: 0, kind: 'audio', codec: 'mp3', sampleRate: rate, channels }],
  };
}
