/**
 * What ffprobe says of a FLAC file, from its STREAMINFO block: one flac stream, its rate and
 * channels, and the duration its sample count gives. A file with an ID3 tag in front, a picture
 * block (ffprobe shows cover art as a video stream) or no sample count is left to ffprobe.
 */
import type { HeaderFile } from './header-file.js';
import type { MediaProbe } from './runner.js';

const STREAMINFO = 0;
const PICTURE = 6;
const INVALID = 127;
/** More metadata blocks than any tagger writes: a longer chain is not walked. */
const MAX_BLOCKS = 64;

export async function probeFlacHeader(file: HeaderFile): Promise<MediaProbe | undefined> {
  const { head, size } = file;
  if (head.length < 42 || head.toString('latin1', 0, 4) !== 'fLaC') return undefined;
  // STREAMINFO is always the first block, 34 bytes.
  if ((head[4]! & 0x7f) !== STREAMINFO || head.readUIntBE(5, 3) !== 34) return undefined;
  const info = 8;
  const sampleRate = head.readUIntBE(info + 10, 3) >> 4;
  const channels = ((head[info + 12]! >> 1) & 0x07) + 1;
  const samples = (head[info + 13]! & 0x0f) * 2 ** 32 + head.readUInt32BE(info + 14);
  if (sampleRate === 0 || samples === 0) return undefined;
  // The other blocks' headers, for a picture; read one by one, as a picture may pass the head.
  let last = (head[4]! & 0x80) !== 0;
  let at = info + 34;
  for (let blocks = 1; !last; blocks++) {
    if (blocks > MAX_BLOCKS) return undefined;
    const header = at + 4 <= head.length ? head.subarray(at, at + 4) : await file.read(at, 4);
    if (!header) return undefined;
    const type = header[0]! & 0x7f;
    if (type === PICTURE || type === INVALID) return undefined;
    last = (header[0]! & 0x80) !== 0;
    at += 4 + header.readUIntBE(1, 3);
    if (at > size) return undefined;
  }
  return {
    formatName: 'flac',
    durationSeconds: samples / sampleRate,
    streams: [{ index: 0, kind: 'audio', codec: 'flac', sampleRate, channels }],
  };
}
