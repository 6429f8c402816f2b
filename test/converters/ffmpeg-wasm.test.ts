/**
 * The ffmpeg.wasm runner against the real @ffmpeg/core: probing, a representative subset of
 * conversions (one video pair, one audio pair, video to audio) checked with the native ffprobe,
 * and the failures a caller acts on. Aborts and the worker's lifecycle are in
 * ffmpeg-wasm-lifecycle.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FfmpegRunInput } from '../../src/converters/ffmpeg/runner.js';
import { LogTail, parseProbe } from '../../src/converters/ffmpeg/wasm-probe.js';
import { createWasmFfmpegRunner } from '../../src/converters/ffmpeg/wasm-runner.js';
import { FileconvError } from '../../src/core/errors.js';
import { describeWithEngine } from '../helpers/engines.js';
import { fixture, tempDir } from '../helpers/temp.js';

const runner = createWasmFfmpegRunner();
const availability = await runner.available();
const nativeTools = ['ffmpeg', 'ffprobe'].every((tool) => spawnSync(tool, ['-version']).status === 0);
const never = new AbortController().signal;

afterAll(() => runner.close());

/** What the native ffprobe says about a file: the independent check of the outputs. */
function ffprobe(path: string): { duration: number; codecs: string[] } {
  const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', path];
  const result = spawnSync('ffprobe', args, { encoding: 'utf8' });
  const json = JSON.parse(result.stdout) as {
    format: { duration: string };
    streams: Array<{ codec_name: string }>;
  };
  return { duration: Number(json.format.duration), codecs: json.streams.map((s) => s.codec_name) };
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<FileconvError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  expect((error as FileconvError).code).toBe(code);
  return error as FileconvError;
}

async function convert(input: string, ext: string, codecArgs: string[]) {
  const dir = await tempDir('fileconv-wasm-');
  const outputPath = join(dir, `out.${ext}`);
  const fractions: number[] = [];
  const run: FfmpegRunInput = {
    args: ['-i', input, ...codecArgs, outputPath],
    inputPath: input,
    outputPath,
    signal: never,
    durationSeconds: 2,
    onProgress: (fraction) => fractions.push(fraction),
  };
  const result = await runner.run(run);
  return { dir, outputPath, fractions, result };
}

describe('reading ffmpeg.wasm output', () => {
  it('turns ffprobe JSON into a MediaProbe', () => {
    const json = JSON.stringify({
      format: { format_name: 'matroska,webm', duration: 'N/A' },
      streams: [
        {
          index: 0,
          codec_type: 'video',
          codec_name: 'vp8',
          width: 640,
          height: 360,
          avg_frame_rate: '30000/1001',
        },
        { index: 1, codec_type: 'audio', codec_name: 'opus', sample_rate: '48000', channels: 2 },
        { index: 2, codec_type: 'subtitle', codec_name: 'webvtt' },
      ],
    });
    expect(parseProbe(json, [])).toEqual({
      formatName: 'matroska,webm',
      durationSeconds: undefined,
      streams: [
        { index: 0, kind: 'video', codec: 'vp8', width: 640, height: 360, fps: 30000 / 1001 },
        { index: 1, kind: 'audio', codec: 'opus', sampleRate: 48000, channels: 2 },
        { index: 2, kind: 'subtitle', codec: 'webvtt' },
      ],
    });
  });

  it('calls empty or unparsable ffprobe output CORRUPT_INPUT', () => {
    for (const stdout of ['{\n\n}', '', '{"format": {"format_name": "wav"}, "streams": []}']) {
      expect(() => parseProbe(stdout, ['/in.bin: Invalid data found when processing input'])).toThrow(
        expect.objectContaining({ code: 'CORRUPT_INPUT' }),
      );
    }
  });

  it('keeps the last 20 meaningful log lines', () => {
    const tail = new LogTail();
    for (let i = 0; i < 30; i++) tail.push(`line ${i}`);
    tail.push('frame=   10 fps=0.0 q=0.0 size=       1kB time=00:00:00.11');
    tail.push('size=     157kB time=00:00:10.00 bitrate= 128.5kbits/s');
    tail.push('Aborted()');
    expect(tail.toArray()).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 10}`));
  });
});

describeWithEngine(
  'ffmpeg.wasm',
  availability.ok,
  'npm install @ffmpeg/core',
  'the ffmpeg.wasm runner',
  () => {
    it('names the core it found', () => {
      expect(availability).toEqual({ ok: true, version: 'ffmpeg.wasm core 0.12.10' });
      expect(runner.kind).toBe('wasm');
    });

    describe('probe', () => {
      it('reads a video file', async () => {
        expect(await runner.probe(fixture('fixture.mp4'), never)).toEqual({
          formatName: 'mov,mp4,m4a,3gp,3g2,mj2',
          durationSeconds: 2,
          streams: [
            { index: 0, kind: 'video', codec: 'h264', width: 64, height: 48, fps: 10 },
            { index: 1, kind: 'audio', codec: 'aac', sampleRate: 8000, channels: 1 },
          ],
        });
      });

      it('reads an audio file', async () => {
        expect(await runner.probe(fixture('fixture.wav'), never)).toEqual({
          formatName: 'wav',
          durationSeconds: 2,
          streams: [{ index: 0, kind: 'audio', codec: 'pcm_u8', sampleRate: 8000, channels: 1 }],
        });
      });

      it.runIf(nativeTools)('marks cover art as an attached picture, without a frame rate', async () => {
        const input = join(await tempDir('fileconv-wasm-'), 'cover.mp3');
        const sources = [
          '-i',
          fixture('fixture.mp3'),
          '-i',
          fixture('fixture.png'),
          '-map',
          '0',
          '-map',
          '1',
        ];
        spawnSync('ffmpeg', [
          '-v',
          'error',
          ...sources,
          '-c',
          'copy',
          '-disposition:v',
          'attached_pic',
          input,
        ]);
        const probe = await runner.probe(input, never);
        expect(probe.streams[1]).toEqual({
          index: 1,
          kind: 'video',
          codec: 'png',
          width: 64,
          height: 48,
          attachedPicture: true,
        });
      });

      it('refuses a file that is not media with CORRUPT_INPUT and says why', async () => {
        const error = await expectCode(runner.probe(fixture('fixture.txt'), never), 'CORRUPT_INPUT');
        expect(String(error.details?.log)).toContain('Invalid data found when processing input');
      });

      it('refuses frames above maxPixels with INPUT_LIMIT_EXCEEDED', async () => {
        await expectCode(
          runner.probe(fixture('fixture.mp4'), never, { maxPixels: 1000 }),
          'INPUT_LIMIT_EXCEEDED',
        );
        const fits = await runner.probe(fixture('fixture.mp4'), never, { maxPixels: 64 * 48 });
        expect(fits.streams[0]?.width).toBe(64);
      });
    });

    describe.runIf(nativeTools)('run (outputs checked against the native ffmpeg and ffprobe)', () => {
      it.each([
        [
          'mp4 -> webm (VP8 + Opus)',
          'fixture.mp4',
          'webm',
          ['-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libopus'],
          ['vp8', 'opus'],
        ],
        ['wav -> mp3', 'fixture.wav', 'mp3', ['-c:a', 'libmp3lame'], ['mp3']],
        ['mp4 -> mp3 (audio only)', 'fixture.mp4', 'mp3', ['-vn', '-c:a', 'libmp3lame'], ['mp3']],
      ])('%s', async (_name, input, ext, codecArgs, codecs) => {
        const { dir, outputPath, fractions, result } = await convert(fixture(input), ext, codecArgs);
        // The same conversion by the native ffmpeg: MP3 pads to whole frames (2.16 s for 2 s here),
        // so the wasm output is held to the native one's duration rather than the input's.
        const nativePath = join(await tempDir('fileconv-native-'), `out.${ext}`);
        spawnSync('ffmpeg', ['-v', 'error', '-i', fixture(input), ...codecArgs, nativePath]);
        const probed = ffprobe(outputPath);
        expect(probed.codecs).toEqual(codecs);
        expect(Math.abs(probed.duration - ffprobe(nativePath).duration)).toBeLessThan(0.1);
        expect(Math.abs(probed.duration - 2)).toBeLessThan(0.25);
        expect(await readdir(dir)).toEqual([`out.${ext}`]); // the temporary name is gone
        // Progress only grows, stays in [0, 1] and ends at 1.
        expect(fractions.length).toBeGreaterThan(0);
        expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
        expect(fractions.at(-1)).toBe(1);
        // Thread CPU time: positive, and a 2 s clip takes far less than 10 s.
        expect(result.cpuMs).toBeGreaterThan(0);
        expect(result.cpuMs).toBeLessThan(10_000);
      });
    });

    describe('failures', () => {
      it('fails with CONVERSION_FAILED and the log tail, leaving no output', async () => {
        const error = await expectCode(
          convert(fixture('fixture.wav'), 'mp3', ['-c:a', 'nonesuch']),
          'CONVERSION_FAILED',
        );
        expect(error.details?.exitCode).toBe(1);
        const log = error.details?.log as string[];
        expect(log.at(-1)).toBe("Unknown encoder 'nonesuch'");
        expect(log.length).toBeLessThanOrEqual(20);
      });

      it('runs a corrupt input to CONVERSION_FAILED without output', async () => {
        const dir = await tempDir('fileconv-wasm-');
        const input = join(dir, 'in.mp4');
        await writeFile(input, 'not a video at all');
        const outputPath = join(dir, 'out.webm');
        const run = runner.run({
          args: ['-i', input, outputPath],
          inputPath: input,
          outputPath,
          signal: never,
        });
        await expectCode(run, 'CONVERSION_FAILED');
        expect(await readdir(dir)).toEqual(['in.mp4']);
      });

      it('refuses inputs over 2 GB before reading them', async () => {
        const dir = await tempDir('fileconv-wasm-');
        const input = join(dir, 'huge.wav');
        await writeFile(input, '');
        await truncate(input, 2 ** 31); // sparse: no disk space used
        const outputPath = join(dir, 'out.mp3');
        const run = runner.run({
          args: ['-i', input, outputPath],
          inputPath: input,
          outputPath,
          signal: never,
        });
        await expectCode(run, 'INPUT_LIMIT_EXCEEDED');
        await expectCode(runner.probe(input, never), 'INPUT_LIMIT_EXCEEDED');
        expect(existsSync(outputPath)).toBe(false);
      });

      it('refuses encoders that crash or hang in the core before starting them', async () => {
        for (const codec of [
          ['-c:v', 'libx265'],
          ['-vcodec', 'libvpx-vp9'],
          ['-c:v:0', 'hevc'],
        ]) {
          const started = performance.now();
          const error = await expectCode(
            convert(fixture('fixture.mp4'), 'mkv', codec),
            'UNSUPPORTED_CONVERSION',
          );
          expect(error.details?.encoder).toBe(codec[1]);
          expect(performance.now() - started).toBeLessThan(100); // libx265 would spin until the timeout
        }
      });

      it('reports a crash inside the WebAssembly as CONVERSION_FAILED', async () => {
        // With the core's own 64 KB stack, the libvpx-vp9 that ffmpeg picks for a .webm output
        // without -c:v overflows it and traps (wasm-core.ts).
        const smallStack = createWasmFfmpegRunner({ stackBytes: 0 });
        try {
          const dir = await tempDir('fileconv-wasm-');
          const outputPath = join(dir, 'out.webm');
          const input = fixture('fixture.mp4');
          const run = smallStack.run({
            args: ['-i', input, outputPath],
            inputPath: input,
            outputPath,
            signal: never,
          });
          const error = await expectCode(run, 'CONVERSION_FAILED');
          expect(error.details?.crash).toBe('memory access out of bounds');
          expect(await readdir(dir)).toEqual([]);
        } finally {
          await smallStack.close();
        }
      });

      it.runIf(nativeTools)(
        "gives the core a stack libopus and libvpx-vp9 fit in (they overflow the core's own)",
        async () => {
          // Stereo 48 kHz: libopus at its default complexity needs more than 64 KB of stack.
          const stereo = join(await tempDir('fileconv-wasm-'), 'stereo.wav');
          const sine = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1:sample_rate=48000'];
          spawnSync('ffmpeg', ['-v', 'error', ...sine, '-ac', '2', stereo]);
          const smallStack = createWasmFfmpegRunner({ stackBytes: 0 });
          try {
            const dir = await tempDir('fileconv-wasm-');
            const outputPath = join(dir, 'out.opus');
            const args = ['-i', stereo, '-c:a', 'libopus', outputPath];
            const small = smallStack.run({ args, inputPath: stereo, outputPath, signal: never });
            expect((await expectCode(small, 'CONVERSION_FAILED')).details?.crash).toBe(
              'memory access out of bounds',
            );
          } finally {
            await smallStack.close();
          }
          const opus = await convert(stereo, 'opus', ['-c:a', 'libopus']);
          expect(ffprobe(opus.outputPath).codecs).toEqual(['opus']);
          // libvpx-vp9 too (still refused by name: the converter does not offer it in wasm).
          const vp9 = await convert(fixture('fixture.mp4'), 'webm', []);
          expect(ffprobe(vp9.outputPath).codecs).toEqual(['vp9', 'opus']);
        },
      );

      it('rejects arguments that do not name the input and output exactly', async () => {
        const run = runner.run({
          args: ['-i', 'elsewhere.wav', '/tmp/out.mp3'],
          inputPath: fixture('fixture.wav'),
          outputPath: '/tmp/out.mp3',
          signal: never,
        });
        await expectCode(run, 'INTERNAL');
      });
    });
  },
);
