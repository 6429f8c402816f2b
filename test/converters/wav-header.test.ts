/**
 * A plain WAV is described from its header (src/converters/ffmpeg/wav-header.ts) as ffprobe
 * describes it, so a wav job starts ffmpeg only; everything else still goes to ffprobe.
 */
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { probeFromHeader } from '../../src/converters/ffmpeg/header-probe.js';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import type { FfmpegRunner } from '../../src/converters/ffmpeg/runner.js';
import { parseWavHeader } from '../../src/converters/ffmpeg/wav-header.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  FFMPEG_AVAILABLE,
  FFMPEG_INSTALL,
  probeCountingRunner,
  workspace,
} from './ffmpeg-helpers.js';

/** ffmpeg arguments making two seconds of tone in each WAV variant. */
const VARIANTS: Record<string, string[]> = {
  'u8 mono 8 kHz': ['-ar', '8000', '-ac', '1', '-c:a', 'pcm_u8'],
  's16 stereo 44.1 kHz': ['-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le'],
  's24 mono 48 kHz': ['-ar', '48000', '-ac', '1', '-c:a', 'pcm_s24le'],
  's32 stereo': ['-ar', '22050', '-ac', '2', '-c:a', 'pcm_s32le'],
  'f32 stereo': ['-ar', '44100', '-ac', '2', '-c:a', 'pcm_f32le'],
  'f64 mono': ['-ar', '16000', '-ac', '1', '-c:a', 'pcm_f64le'],
  'A-law': ['-ar', '8000', '-ac', '1', '-c:a', 'pcm_alaw'],
  'mu-law': ['-ar', '8000', '-ac', '1', '-c:a', 'pcm_mulaw'],
  // Six channels: ffmpeg writes WAVE_FORMAT_EXTENSIBLE.
  'extensible 5.1': ['-ar', '48000', '-ac', '6', '-c:a', 'pcm_s16le'],
  // A LIST chunk (the title) before the data.
  'with metadata': ['-ar', '44100', '-ac', '1', '-c:a', 'pcm_s16le', '-metadata', 'title=Tone'],
};

function makeWav(path: string, args: string[], seconds = 2): void {
  execFileSync('ffmpeg', [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
    ...args,
    path,
  ]);
}

interface FfprobeJson {
  format: { format_name: string; duration: string };
  streams: { codec_name: string; sample_rate: string; channels: number; codec_type: string }[];
}

function ffprobe(path: string): FfprobeJson {
  const args = ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', path];
  return JSON.parse(execFileSync('ffprobe', args, { encoding: 'utf8' })) as FfprobeJson;
}

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'a WAV header', () => {
  for (const [name, args] of Object.entries(VARIANTS)) {
    it(`says what ffprobe says of ${name}`, async () => {
      const ws = await workspace();
      const path = join(ws.inputs, 'tone.wav');
      makeWav(path, args);
      const probe = await probeFromHeader(path, 'wav', (await stat(path)).size);
      const expected = ffprobe(path);
      const [stream] = expected.streams;
      expect(probe).toEqual({
        formatName: expected.format.format_name,
        durationSeconds: expect.closeTo(Number(expected.format.duration), 3),
        streams: [
          {
            index: 0,
            kind: stream?.codec_type,
            codec: stream?.codec_name,
            sampleRate: Number(stream?.sample_rate),
            channels: stream?.channels,
          },
        ],
      });
    });
  }

  it('leaves to ffprobe what it is unsure of', async () => {
    const ws = await workspace();
    const path = join(ws.inputs, 'tone.wav');
    makeWav(path, VARIANTS['s16 stereo 44.1 kHz'] ?? []);
    const bytes = await readFile(path);
    // Truncated: the data chunk says more than the file holds.
    expect(parseWavHeader(bytes.subarray(0, 1000), 1000)).toBeUndefined();
    // Not RIFF/WAVE, or a header cut short.
    expect(parseWavHeader(Buffer.from('RIFX....WAVE'), 12)).toBeUndefined();
    expect(parseWavHeader(bytes.subarray(0, 30), bytes.length)).toBeUndefined();
    // A streamed WAV's data size, and a compressed format (MS ADPCM).
    const streamed = Buffer.from(bytes);
    streamed.writeUInt32LE(0xffffffff, streamed.indexOf('data') + 4);
    expect(parseWavHeader(streamed, streamed.length)).toBeUndefined();
    const adpcm = join(ws.inputs, 'adpcm.wav');
    makeWav(adpcm, ['-ar', '8000', '-ac', '1', '-c:a', 'adpcm_ms']);
    expect(await probeFromHeader(adpcm, 'wav', (await stat(adpcm)).size)).toBeUndefined();
  });

  it('spares the ffprobe process of a wav job, which still converts', async () => {
    const probed: string[] = [];
    const runner = probeCountingRunner(probed);
    const converter = withOptionsParsed(createFfmpegConverter({ runner }));
    const ws = await workspace();
    const ctx = context(ws, 'wav', 'mp3');
    await converter.convert(ctx);
    const out = ffprobe(ctx.outputPath);
    expect(out.streams[0]?.codec_name).toBe('mp3');
    expect(Number(out.format.duration)).toBeCloseTo(2, 0);
    expect(probed).toEqual([]);
    // A WAV it cannot read from the header goes to ffprobe as before.
    const adpcm = join(ws.inputs, 'adpcm.wav');
    makeWav(adpcm, ['-ar', '8000', '-ac', '1', '-c:a', 'adpcm_ms']);
    await converter.convert({ ...ctx, inputPath: adpcm });
    expect(probed).toEqual([adpcm]);
  });
});

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'an empty ffmpeg result', () => {
  /** A runner that exits as ffmpeg does on a full disk or a damaged input: 0, an empty file. */
  const emptyResult = (encoded: boolean): FfmpegRunner => ({
    ...probeCountingRunner([]),
    run: async (input) => {
      if (encoded) input.onProgress?.(0.5);
      await writeFile(input.outputPath, '');
      return { cpuMs: 0 };
    },
  });

  it('is a lost write when media reached the encoder, a damaged input when none did', async () => {
    const ws = await workspace();
    const wav = join(ws.inputs, 'tone.wav');
    makeWav(wav, VARIANTS['s16 stereo 44.1 kHz'] ?? []);
    for (const [encoded, code] of [
      [true, 'CONVERSION_FAILED'],
      [false, 'CORRUPT_INPUT'],
    ] as const) {
      const converter = withOptionsParsed(createFfmpegConverter({ runner: emptyResult(encoded) }));
      const ctx = { ...context(ws, 'wav', 'mp3'), inputPath: wav };
      await expect(converter.convert(ctx)).rejects.toMatchObject({ code });
    }
  });
});
