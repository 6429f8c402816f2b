/**
 * The ffmpeg converter on the WebAssembly engine (createFfmpegConverter({ engine: 'wasm' })):
 * what it plans and refuses because two encoders of @ffmpeg/core 0.12.10 do not work (hevc and
 * vp9: INVALID_OPTIONS from the options schema, webm defaults to VP8 + Opus, every stream gets an
 * explicit encoder), and a representative subset of conversions checked with the native ffprobe:
 * one video pair, one audio pair, video to audio, stereo 48 kHz sound to Opus (which overflowed
 * the core's own stack), and a truncated mp4 refused as CORRUPT_INPUT.
 * The runner on its own is in ffmpeg-wasm.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONTAINERS, containerOf } from '../../src/converters/ffmpeg/containers.js';
import { buildFfmpegArgs } from '../../src/converters/ffmpeg/ffmpeg-args.js';
import { createFfmpegConverter, type FfmpegPlan } from '../../src/converters/ffmpeg/index.js';
import { mediaOptionsSchema } from '../../src/converters/ffmpeg/media-options.js';
import type { MediaProbe, RunnerKind } from '../../src/converters/ffmpeg/runner.js';
import { chooseStreams } from '../../src/converters/ffmpeg/safety.js';
import { WASM_UNUSABLE_ENCODERS } from '../../src/converters/ffmpeg/wasm-encoders.js';
import { createEngine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  decodedAudioSeconds,
  expectCode,
  expectNoLeftovers,
  FIXTURE_SECONDS,
  fixture,
  MAX_PIXELS,
  workspace,
} from './ffmpeg-helpers.js';

const FFPROBE = '/usr/bin/ffprobe';
const NATIVE = existsSync(FFPROBE) && existsSync('/usr/bin/ffmpeg');

const plans: FfmpegPlan[] = [];
const converter = withOptionsParsed(
  createFfmpegConverter({ engine: 'wasm', onPlan: (plan) => plans.push(plan) }),
);
const availability = await converter.available();

/** What the native ffprobe says: the container duration and each stream's codec. */
function ffprobe(path: string): { duration: number; codecs: string[] } {
  const json = execFileSync(FFPROBE, [
    '-v',
    'error',
    '-print_format',
    'json',
    '-show_format',
    '-show_streams',
    path,
  ]);
  const parsed = JSON.parse(json.toString()) as {
    format: { duration: string };
    streams: { codec_name: string }[];
  };
  return { duration: Number(parsed.format.duration), codecs: parsed.streams.map((s) => s.codec_name) };
}

/** The value following `flag` in `args`, for every occurrence. */
function valuesOf(args: readonly string[], flag: string): string[] {
  return args.flatMap((arg, i) => (arg === flag ? [args[i + 1]!] : []));
}

function schemaIssues(to: string, options: Record<string, unknown>, engine: RunnerKind): string[] {
  const parsed = mediaOptionsSchema(to, {}, engine).safeParse(options);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('ffmpeg on WebAssembly: codec choices', () => {
  it('does not offer hevc or vp9, and says why when one is asked for', () => {
    const offered = (to: string, engine: RunnerKind) =>
      (
        z.toJSONSchema(mediaOptionsSchema(to, {}, engine)) as {
          properties: Record<string, { enum?: string[] }>;
        }
      ).properties.videoCodec?.enum;
    expect(offered('webm', 'wasm')).toEqual(['vp8']);
    expect(offered('webm', 'native')).toEqual(['vp9', 'vp8']);
    expect(offered('mp4', 'wasm')).toEqual(['h264', 'mpeg4']);
    expect(offered('mkv', 'wasm')).toEqual(['h264', 'vp8', 'mpeg4', 'theora']);

    for (const [to, codec] of [
      ['webm', 'vp9'],
      ['mp4', 'hevc'],
      ['mkv', 'vp9'],
      ['ts', 'hevc'],
    ]) {
      const [issue] = schemaIssues(to!, { videoCodec: codec }, 'wasm');
      expect(issue).toMatch(
        new RegExp(`^videoCodec: ${codec} cannot be encoded by the WebAssembly ffmpeg engine`),
      );
      expect(schemaIssues(to!, { videoCodec: codec }, 'native')).toEqual([]);
    }
    // A codec the container never takes keeps zod's own message, on either engine.
    expect(schemaIssues('webm', { videoCodec: 'h264' }, 'wasm')[0]).not.toMatch(/WebAssembly/);
    // crf ranges follow the codec that will really be used: vp8 (0..63) for webm.
    expect(schemaIssues('webm', { crf: 60 }, 'wasm')).toEqual([]);
  });

  it('names an encoder for every stream it maps, never one that fails in the core', () => {
    const probe: MediaProbe = {
      formatName: 'whatever',
      durationSeconds: 2,
      streams: [
        // A video and an audio codec no target copies: every target encodes both.
        { index: 0, kind: 'video', codec: 'rawvideo', width: 64, height: 48, fps: 10 },
        { index: 1, kind: 'audio', codec: 'pcm_alaw', sampleRate: 8000, channels: 1 },
      ],
    };
    const source = containerOf('mkv')!;
    for (const [name, target] of Object.entries(CONTAINERS)) {
      const plan = buildFfmpegArgs({
        source,
        target,
        probe,
        streams: chooseStreams(probe),
        options: {},
        inputPath: '/in.mkv',
        outputPath: `/out.${name}`,
        limits: { maxPixels: MAX_PIXELS, maxWidth: 8192, maxHeight: 8192, maxDurationSeconds: 14_400 },
        threads: undefined,
        engine: 'wasm',
      });
      const video = valuesOf(plan.args, '-c:v');
      const audio = valuesOf(plan.args, '-c:a');
      expect(plan.engine).toBe('wasm');
      if (target.kind === 'audio') expect(plan.args, name).toContain('-vn');
      else expect(video, name).toHaveLength(1);
      if (target.kind === 'animation') expect(plan.args, name).toContain('-an');
      else expect(audio, name).toHaveLength(1);
      for (const encoder of [...video, ...audio])
        expect(WASM_UNUSABLE_ENCODERS.has(encoder), name).toBe(false);
      if (name === 'webm') expect([...video, ...audio]).toEqual(['libvpx', 'libopus']);
    }
  });

  it('refuses to plan an unusable encoder even past the schema (UNSUPPORTED_CONVERSION)', () => {
    const probe: MediaProbe = {
      formatName: 'mov',
      durationSeconds: 2,
      streams: [{ index: 0, kind: 'video', codec: 'h264', width: 64, height: 48 }],
    };
    const plan = () =>
      buildFfmpegArgs({
        source: containerOf('mp4')!,
        target: containerOf('mkv')!,
        probe,
        streams: chooseStreams(probe),
        options: { videoCodec: 'hevc' },
        inputPath: '/in.mp4',
        outputPath: '/out.mkv',
        limits: { maxPixels: MAX_PIXELS, maxWidth: 8192, maxHeight: 8192, maxDurationSeconds: 14_400 },
        threads: undefined,
        engine: 'wasm',
      });
    expect(plan).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_CONVERSION' }));
  });
});

describeWithEngine(
  'ffmpeg.wasm',
  availability.ok,
  'npm install @ffmpeg/core',
  'the ffmpeg converter on the WebAssembly engine',
  () => {
    it('reports the core as its engine', () => {
      expect(availability).toEqual({ ok: true, version: 'ffmpeg.wasm core 0.12.10' });
    });

    describe.runIf(NATIVE)('conversions (checked with /usr/bin/ffprobe)', () => {
      /** The same conversion on the native engine: the reference duration (MP3 pads to whole frames). */
      const native = withOptionsParsed(createFfmpegConverter({ engine: 'native' }));

      it.each([
        ['mp4', 'webm', ['vp8', 'opus'], ['libvpx', 'libopus']],
        ['wav', 'mp3', ['mp3'], ['libmp3lame']],
        ['mp4', 'mp3', ['mp3'], ['libmp3lame']],
      ])('%s -> %s', async (from, to, codecs, encoders) => {
        const ws = await workspace();
        const progress: number[] = [];
        plans.length = 0;
        await converter.convert(context(ws, from, to, { progress }));
        const output = join(ws.outputs, `out.${to}`);

        const plan = plans.at(-1)!;
        expect(plan.engine).toBe('wasm');
        expect([...valuesOf(plan.args, '-c:v'), ...valuesOf(plan.args, '-c:a')]).toEqual(encoders);

        const probed = ffprobe(output);
        expect(probed.codecs).toEqual(codecs);
        const reference = join(ws.inputs, `native.${to}`);
        await native.convert(context(ws, from, to, { outputPath: reference }));
        expect(Math.abs(probed.duration - ffprobe(reference).duration)).toBeLessThan(0.1);
        // What a player hears: the decoder drops the encoder's priming and padding.
        expect(Math.abs(decodedAudioSeconds(output) - FIXTURE_SECONDS)).toBeLessThan(0.1);

        expect(progress.at(-1)).toBe(1);
        expect(progress).toEqual([...progress].sort((a, b) => a - b));
        await rm(reference);
        await rm(output);
        await expectNoLeftovers(ws);
      });
    });

    it.runIf(NATIVE)(
      'converts 48 kHz stereo sound to Opus (it needs the stack wasm-core.ts gives the core)',
      async () => {
        const ws = await workspace();
        const input = join(ws.inputs, 'stereo.mp4');
        execFileSync('/usr/bin/ffmpeg', [
          ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=duration=1:size=64x48:rate=10'],
          ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=48000'],
          ...['-ac', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', input],
        ]);
        await converter.convert(context(ws, 'mp4', 'webm', { inputPath: input }));
        const output = join(ws.outputs, 'out.webm');
        expect(ffprobe(output).codecs).toEqual(['vp8', 'opus']);
        expect(Math.abs(decodedAudioSeconds(output) - 1)).toBeLessThan(0.1);
      },
    );

    it('refuses vp9 or hevc with INVALID_OPTIONS before running anything', async () => {
      const ws = await workspace();
      plans.length = 0;
      const vp9 = await expectCode(
        converter.convert(context(ws, 'mp4', 'webm', { options: { videoCodec: 'vp9' } })),
        'INVALID_OPTIONS',
      );
      expect(vp9.message).toMatch(/vp9 cannot be encoded by the WebAssembly ffmpeg engine/);
      await expectCode(
        converter.convert(context(ws, 'mp4', 'mkv', { options: { videoCodec: 'hevc' } })),
        'INVALID_OPTIONS',
      );
      expect(plans).toEqual([]);
      await expectNoLeftovers(ws);
      // The schema the engine validates requests with is the WebAssembly one too.
      expect(converter.optionsSchema?.('webm').safeParse({ videoCodec: 'vp9' }).success).toBe(false);
      const work = await mkdtemp(join(tmpdir(), 'fileconv-wasm-engine-'));
      try {
        const engine = createEngine({ converters: [converter], tempDir: work });
        await expectCode(
          engine.convertFile(fixture('fixture.mp4'), join(work, 'out.webm'), {
            options: { videoCodec: 'vp9' },
          }),
          'INVALID_OPTIONS',
        );
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });

    it('refuses an mp4 whose media data is cut short as CORRUPT_INPUT, like the native engine', async () => {
      const ws = await workspace();
      const bytes = await readFile(fixture('fixture.mp4'));
      const input = join(ws.inputs, 'cut.mp4');
      await writeFile(input, bytes.subarray(0, Math.floor(bytes.length / 2)));
      // mkv copies both streams: nothing is decoded, so "partial file" is ffmpeg's only complaint.
      for (const to of ['mkv', 'mp3']) {
        const error = await expectCode(
          converter.convert(context(ws, 'mp4', to, { inputPath: input })),
          'CORRUPT_INPUT',
        );
        expect(JSON.stringify(error.details)).toMatch(/partial file/);
      }
      await expectNoLeftovers(ws);
    });
  },
);
