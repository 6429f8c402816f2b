/**
 * The facts ffprobe reports of an AAC stream (sample rate, channels), from its
 * AudioSpecificConfig (an MP4's esds, a Matroska track's CodecPrivate). Only plain AAC-LC is
 * answered: with HE-AAC (SBR, PS), or a low rate where SBR may be implicit, ffprobe reports what
 * the decoder outputs (twice the rate), which only decoding shows; the caller then asks ffprobe.
 */

const RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];
/** Channel configurations 1-7; 0 (a program config element) is left to ffprobe. */
const CHANNELS = [0, 1, 2, 3, 4, 5, 6, 8];
const AAC_LC = 2;
/** At or below this rate an AAC-LC stream may carry implicit SBR, doubling the decoded rate. */
const IMPLICIT_SBR_MAX_RATE = 24000;

export function aacFacts(config: Buffer): { sampleRate: number; channels: number } | undefined {
  if (config.length < 2) return undefined;
  const bits = config.readUInt16BE(0);
  const objectType = bits >> 11;
  const rateIndex = (bits >> 7) & 0x0f;
  const channelConfig = (bits >> 3) & 0x0f;
  const sampleRate = RATES[rateIndex];
  const channels = CHANNELS[channelConfig];
  if (objectType !== AAC_LC || sampleRate === undefined || !channels) return undefined;
  if (sampleRate <= IMPLICIT_SBR_MAX_RATE) return undefined;
  // Anything after the 2-byte LC config must be the backward-compatible SBR signal (sync
  // extension 0x2b7, then the extension's object type and its present flag) saying "no SBR".
  if (config.length > 2) {
    if (config.length < 5) return undefined;
    const rest = config.readUIntBE(2, 3);
    const sync = rest >>> 13;
    const sbrPresent = (rest >>> 7) & 1;
    if (sync !== 0x2b7 || sbrPresent === 1) return undefined;
  }
  return { sampleRate, channels };
}
