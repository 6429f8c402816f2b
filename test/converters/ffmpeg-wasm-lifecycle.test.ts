/**
 * The ffmpeg.wasm runner's worker: aborting a running job stops it at once (the worker is
 * terminated, nothing is left behind, and the next job gets a new worker), a timeout maps to
 * CONVERSION_TIMEOUT, a queued job can be dropped, and an idle worker never keeps a process alive.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FfmpegRunInput } from '../../src/converters/ffmpeg/runner.js';
import { createWasmFfmpegRunner } from '../../src/converters/ffmpeg/wasm-runner.js';
import { FileconvError } from '../../src/core/errors.js';
import { describeWithEngine } from '../helpers/engines.js';
import { fixture } from '../helpers/temp.js';

const runner = createWasmFfmpegRunner();
const availability = await runner.available();
const nativeFfmpeg = spawnSync('ffmpeg', ['-version']).status === 0;
const root = join(import.meta.dirname, '..', '..');
let dir = '';
/** A 10 s 320x240 clip: VP8 in wasm takes several seconds on it, long enough to abort midway. */
let longClip = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-wasm-life-'));
  longClip = join(dir, 'long.mp4');
  if (!nativeFfmpeg) return;
  const lavfi = ['-f', 'lavfi', '-i', 'testsrc=duration=10:size=320x240:rate=25'];
  const tone = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=10'];
  const made = spawnSync('ffmpeg', [
    '-v',
    'error',
    ...lavfi,
    ...tone,
    '-pix_fmt',
    'yuv420p',
    '-shortest',
    longClip,
  ]);
  expect(made.status).toBe(0);
});

afterAll(async () => {
  await runner.close();
  await rm(dir, { recursive: true, force: true });
});

function vp8(outputName: string, signal: AbortSignal, onProgress?: (f: number) => void): FfmpegRunInput {
  const outputPath = join(dir, outputName);
  const args = ['-i', longClip, '-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libopus', outputPath];
  return {
    args,
    inputPath: longClip,
    outputPath,
    signal,
    durationSeconds: 10,
    ...(onProgress ? { onProgress } : {}),
  };
}

async function rejection(promise: Promise<unknown>): Promise<FileconvError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileconvError);
  return error as FileconvError;
}

/** Files other than the generated input left in the work directory. */
async function leftovers(): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name !== 'long.mp4');
}

async function smallRunWorks(): Promise<void> {
  const outputPath = join(dir, 'after.mp3');
  const input = fixture('fixture.wav');
  const signal = new AbortController().signal;
  await runner.run({
    args: ['-i', input, '-c:a', 'libmp3lame', outputPath],
    inputPath: input,
    outputPath,
    signal,
  });
  expect(await leftovers()).toEqual(['after.mp3']);
  await rm(outputPath);
}

describeWithEngine(
  'ffmpeg.wasm',
  availability.ok,
  'npm install @ffmpeg/core',
  'the ffmpeg.wasm worker',
  () => {
    it.runIf(nativeFfmpeg)('stops a running job on abort, leaves nothing, and runs again', async () => {
      const controller = new AbortController();
      let aborted = 0;
      const running = runner.run(
        vp8('aborted.webm', controller.signal, () => {
          // Progress is reported from inside the synchronous exec: abort in the middle of it.
          if (!aborted) {
            aborted = performance.now();
            controller.abort();
          }
        }),
      );
      const error = await rejection(running);
      const took = performance.now() - aborted;
      expect(aborted).toBeGreaterThan(0);
      expect(error.code).toBe('CANCELED');
      expect(took).toBeLessThan(1000); // terminate + cleanup; the encode had seconds to go
      expect(await leftovers()).toEqual([]);
      await smallRunWorks(); // on a new worker
    });

    it.runIf(nativeFfmpeg)('maps an AbortSignal.timeout to CONVERSION_TIMEOUT', async () => {
      const started = performance.now();
      const error = await rejection(runner.run(vp8('timeout.webm', AbortSignal.timeout(1500))));
      expect(error.code).toBe('CONVERSION_TIMEOUT');
      expect(performance.now() - started).toBeLessThan(3000);
      expect(await leftovers()).toEqual([]);
    });

    it.runIf(nativeFfmpeg)('passes a FileconvError abort reason through as itself', async () => {
      const controller = new AbortController();
      const running = runner.run(vp8('reason.webm', controller.signal));
      const reason = new FileconvError('OVERLOADED', 'shedding load');
      setTimeout(() => controller.abort(reason), 300);
      expect(await rejection(running)).toBe(reason);
      expect(await leftovers()).toEqual([]);
    });

    it.runIf(nativeFfmpeg)('drops a queued job on abort without touching the running one', async () => {
      const first = new AbortController();
      const second = new AbortController();
      const running = runner.run(vp8('first.webm', first.signal));
      const queued = runner.run(vp8('second.webm', second.signal)); // maxWorkers 1: waits
      const started = performance.now();
      second.abort();
      expect((await rejection(queued)).code).toBe('CANCELED');
      expect(performance.now() - started).toBeLessThan(100);
      first.abort();
      expect((await rejection(running)).code).toBe('CANCELED');
      expect(await leftovers()).toEqual([]);
    });

    it('runs jobs side by side with maxWorkers: 2', async () => {
      const pair = createWasmFfmpegRunner({ maxWorkers: 2 });
      try {
        const signal = new AbortController().signal;
        const probes = await Promise.all([
          pair.probe(fixture('fixture.mp4'), signal),
          pair.probe(fixture('fixture.wav'), signal),
          pair.probe(fixture('fixture.mp3'), signal),
        ]);
        expect(probes.map((p) => p.formatName)).toEqual(['mov,mp4,m4a,3gp,3g2,mj2', 'wav', 'mp3']);
      } finally {
        await pair.close();
      }
    });

    it('lets a process exit while its worker idles, without close()', async () => {
      const runnerUrl = new URL('../../src/converters/ffmpeg/wasm-runner.ts', import.meta.url).href;
      const script = [
        `const { createWasmFfmpegRunner } = await import(${JSON.stringify(runnerUrl)});`,
        'const runner = createWasmFfmpegRunner();',
        `const probe = await runner.probe(${JSON.stringify(fixture('fixture.wav'))}, new AbortController().signal);`,
        'console.log(probe.formatName);',
      ].join('\n');
      const started = performance.now();
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        { cwd: root, timeout: 20_000 },
      );
      expect(stdout.trim()).toBe('wav');
      // Far below the 30 s idle timeout: the idle worker did not hold the event loop open.
      expect(performance.now() - started).toBeLessThan(15_000);
    });
  },
);
