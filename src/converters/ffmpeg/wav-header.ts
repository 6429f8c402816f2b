/**
 * What ffprobe would say of a plain WAV file, read from its header in JS: the container, one
 * audio stream (codec as ffmpeg names it, sample rate, channels) and the duration the data chunk
 * holds. A WAV job then starts one process (ffmpeg), not two: ffprobe costs a process start and
 * ~0.07 s of CPU, more than a short wav -> mp3 conversion spends in node.
 *
 * Only the plain case is answered: RIFF/WAVE with a `fmt ` chunk of a PCM, float, A-law or
 * mu-law format and a `data` chunk with its size, both within the head header-probe.ts reads.
 * Anything else (RF64, a streamed size, a compressed format, a broken header) gives undefined,
 * and ffprobe decides as before, with its CORRUPT_INPUT for what it cannot read.
 */
import type { MediaProbe } from './runner.js';

/** The WAVE format tags ffmpeg decodes as these codecs, by bits per sample. */
function codecOf(tag: number, bits: number): string | undefined {
  if (tag === 1) return { 8: 'pcm_u8', 16: 'pcm_s16le', 24: 'pcm_s24le', 32: 'pcm_s32le' }[bits];
  if (tag === 3) return { 32: 'pcm_f32le', 64: 'pcm_f64le' }[bits];
  if (tag === 6 && bits === 8) return 'pcm_alaw';
  if (tag === 7 && bits === 8) return 'pcm_mulaw';
  return undefined;
}

/** The probe from `head` (the file's first bytes) of a file of `size` bytes; undefined when unsure. */
export function parseWavHeader(head: Buffer, size: number): MediaProbe | undefined {
  if (
    head.length < 12 ||
    head.toString('latin1', 0, 4) !== 'RIFF' ||
    head.toString('latin1', 8, 12) !== 'WAVE'
  )
    return undefined;
  let format: { codec: string; channels: number; sampleRate: number; blockAlign: number } | undefined;
  for (let at = 12; at + 8 <= head.length; ) {
    const id = head.toString('latin1', at, at + 4);
    const length = head.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === 'fmt ') {
      if (length < 16 || body + 16 > head.length) return undefined;
      let tag = head.readUInt16LE(body);
      const channels = head.readUInt16LE(body + 2);
      const sampleRate = head.readUInt32LE(body + 4);
      const blockAlign = head.readUInt16LE(body + 12);
      const bits = head.readUInt16LE(body + 14);
      // WAVE_FORMAT_EXTENSIBLE: the real tag opens the sub-format GUID.
      if (tag === 0xfffe) {
        if (length < 40 || body + 40 > head.length) return undefined;
        tag = head.readUInt16LE(body + 24);
      }
      const codec = codecOf(tag, bits);
      if (!codec || channels === 0 || sampleRate === 0 || blockAlign === 0) return undefined;
      format = { codec, channels, sampleRate, blockAlign };
    } else if (id === 'data') {
      // A streamed WAV says 0 or 0xFFFFFFFF here; a truncated one more than the file holds.
      if (!format || length === 0 || length === 0xffffffff || body + length > size) return undefined;
      const frames = Math.floor(length / format.blockAlign);
      return {
        formatName: 'wav',
        durationSeconds: frames / format.sampleRate,
        streams: [
          {
            index: 0,
            kind: 'audio',
            codec: format.codec,
            sampleRate: format.sampleRate,
            channels: format.channels,
          },
        ],
      };
    }
    // Chunks are padded to an even length.
    at = body + length + (length % 2);
  }
  return undefined;
}
