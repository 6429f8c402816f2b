/**
 * Hostile, broken and unsuitable inputs to the ffmpeg converter, cancelation and timeouts: each
 * refused with its stable code, with nothing fetched or read beyond the input, no process left
 * running and nothing left in the temp dir.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { createNativeFfmpegRunner } from '../../src/converters/ffmpeg/native-runner.js';
import type { FfmpegRunner } from '../../src/converters/ffmpeg/runner.js';
import type { ErrorCode } from '../../src/core/errors.js';
import { createEngine } from '../../src/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { frameBombGif } from '../hostile/frame-bomb-gif.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  FFMPEG_AVAILABLE,
  FFMPEG_INSTALL,
  fixture,
  type Workspace,
  workspace,
} from './ffmpeg-helpers.js';

const converter = withOptionsParsed(createFfmpegConverter({ engine: 'native' }));

async function refuse(ws: Workspace, bytes: Uint8Array, from: string, to: string, code: ErrorCode) {
  const inputPath = join(ws.inputs, `input.${from}`);
  await writeFile(inputPath, bytes);
  const error = await expectCode(converter.convert(context(ws, from, to, { inputPath })), code);
  await expectNoLeftovers(ws);
  return error;
}

/** true while the process exists (a zombie counts: it must have been reaped too). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ESRCH');
    return false;
  }
}

/** Seconds a paced conversion of a fixture takes: ffmpeg reads the 2 s clip at real-time pace. */
const PACED_SECONDS = 2;

/**
 * The native runner with ffmpeg reading its input at real-time pace (-re): a conversion of a
 * fixture then takes 2 s on any machine, so a cancel or timeout always lands mid-way. Everything
 * else (kill, reap, cleanup) is the real native runner.
 */
function pacedConverter(pids: number[]) {
  const native = createNativeFfmpegRunner({ onSpawn: (pid, tool) => tool === 'ffmpeg' && pids.push(pid) });
  const runner: FfmpegRunner = {
    ...native,
    run: (input) => native.run({ ...input, args: ['-re', ...input.args] }),
  };
  return withOptionsParsed(createFfmpegConverter({ runner }));
}

async function emptyAfterCleanup(dir: string): Promise<string[]> {
  for (let i = 0; i < 40 && (await readdir(dir)).length > 0; i++) await sleep(50);
  return readdir(dir);
}

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'ffmpeg converter: hostile inputs', () => {
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('#EXTM3U\n'));
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses an mp4 cut before its index (moov missing) as CORRUPT_INPUT', async () => {
    const ws = await workspace();
    const moovLast = join(ws.inputs, 'moov-last.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-i', fixture('fixture.mp4'), '-c', 'copy', moovLast]);
    const bytes = await readFile(moovLast);
    const error = await refuse(ws, bytes.subarray(0, bytes.length / 2), 'mp4', 'webm', 'CORRUPT_INPUT');
    expect(JSON.stringify(error.details)).toMatch(/moov atom not found/);
  });

  it('refuses an mp4 whose media data is cut short, rather than writing a shortened result', async () => {
    const ws = await workspace();
    const bytes = await readFile(fixture('fixture.mp4'));
    await refuse(ws, bytes.subarray(0, Math.floor(bytes.length / 2)), 'mp4', 'webm', 'CORRUPT_INPUT');
  });

  it('refuses a frame bomb (a 69 KB GIF of 3000 frames of 4000x4000) before decoding a frame', async () => {
    const ws = await workspace();
    const bomb = frameBombGif(3000);
    expect(bomb.length).toBeLessThan(70_000);
    const planned: unknown[] = [];
    const watched = withOptionsParsed(
      createFfmpegConverter({ engine: 'native', onPlan: (plan) => planned.push(plan) }),
    );
    const inputPath = join(ws.inputs, 'input.gif');
    await writeFile(inputPath, bomb);
    const error = await expectCode(
      watched.convert(context(ws, 'gif', 'mp4', { inputPath })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(error.details).toMatchObject({ frames: 3000, width: 4000, height: 4000 });
    // Refused on the probe alone: no ffmpeg conversion was ever planned.
    expect(planned).toEqual([]);
    await expectNoLeftovers(ws);
    // The same animation at a size that costs what its bytes may: it converts.
    const small = join(ws.inputs, 'small.gif');
    await writeFile(small, frameBombGif(30, 64));
    await watched.convert(context(ws, 'gif', 'mp4', { inputPath: small }));
    expect(planned).toHaveLength(1);
  });

  it("refuses a WAV in a coding ffmpeg cannot decode (36-bit PCM, 3 channels) as the input's fault, not a failure of ours", async () => {
    const channels = 3;
    const bits = 36;
    const block = channels * Math.ceil(bits / 8);
    const format = Buffer.alloc(16);
    format.writeUInt16LE(1, 0); // PCM
    format.writeUInt16LE(channels, 2);
    format.writeUInt32LE(44_100, 4);
    format.writeUInt32LE(44_100 * block, 8);
    format.writeUInt16LE(block, 12);
    format.writeUInt16LE(bits, 14);
    const data = Buffer.alloc(block * 4410);
    const chunk = (id: string, body: Buffer) => {
      const size = Buffer.alloc(4);
      size.writeUInt32LE(body.length);
      return Buffer.concat([Buffer.from(id, 'latin1'), size, body]);
    };
    const wav = chunk(
      'RIFF',
      Buffer.concat([Buffer.from('WAVE'), chunk('fmt ', format), chunk('data', data)]),
    );
    const error = await refuse(await workspace(), wav, 'wav', 'mp3', 'UNSUPPORTED_FORMAT');
    expect(error.message).toMatch(/coding is not one this ffmpeg can decode/);
  });

  it('refuses a zero-length file', async () => {
    await refuse(await workspace(), new Uint8Array(0), 'mp4', 'webm', 'CORRUPT_INPUT');
  });

  it.each(['mp4', 'mkv', 'mp3', 'ts', 'aac'])('refuses random bytes declared %s', async (from) => {
    const to = ['mp3', 'aac'].includes(from) ? 'wav' : 'mp4';
    await refuse(await workspace(), randomBytes(8192), from, to, 'CORRUPT_INPUT');
  });

  const playlists = () => ({
    m3u8: [
      '#EXTM3U',
      '#EXT-X-TARGETDURATION:1',
      '#EXTINF:1,',
      `http://127.0.0.1:${port}/segment.ts`,
      '#EXTINF:1,',
      'file:///etc/passwd',
      '#EXTINF:1,',
      '/etc/passwd',
      '#EXT-X-ENDLIST',
      '',
    ].join('\n'),
    ffconcat: ['ffconcat version 1.0', 'file /etc/passwd', `file http://127.0.0.1:${port}/clip.mp4`, ''].join(
      '\n',
    ),
  });

  for (const kind of ['m3u8', 'ffconcat'] as const) {
    it.each([
      ['mp4', 'webm'],
      ['ts', 'mp4'],
      ['mkv', 'gif'],
      ['mp3', 'wav'],
    ])(
      `refuses an ${kind} list declared %s (to %s) without fetching or reading anything`,
      async (from, to) => {
        const ws = await workspace();
        const error = await refuse(ws, Buffer.from(playlists()[kind]), from, to, 'UNSAFE_INPUT');
        expect(error.message).toMatch(kind === 'm3u8' ? /hls/ : /concat/);
        expect(JSON.stringify(error.details)).not.toMatch(/root:/);
        expect(connections).toBe(0);
      },
    );
  }

  it('refuses the lists through the engine too, and never connects', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({ converters: [converter], tempDir: engineTemp });
    for (const [name, text] of Object.entries(playlists())) {
      const input = join(work, `list.${name}`);
      await writeFile(input, text);
      const error = await expectCode(
        engine.convertFile(input, join(work, 'out.mp4'), { from: 'ts' }),
        'CONTENT_MISMATCH',
      );
      expect(error.message).not.toMatch(/root:/);
    }
    expect(connections).toBe(0);
    expect(await readdir(work)).toEqual(['list.ffconcat', 'list.m3u8']);
    expect(await readdir(engineTemp)).toEqual([]);
  });

  it('refuses an mkv uploaded as mp4: CONTENT_MISMATCH from the engine, and from the probe directly', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({ converters: [converter], tempDir: engineTemp });
    await expectCode(
      engine.convertFile(fixture('fixture.mkv'), join(work, 'out.webm'), { from: 'mp4' }),
      'CONTENT_MISMATCH',
    );
    expect(await readdir(engineTemp)).toEqual([]);
    // The probe is the second line, for callers that skip the engine's detection.
    const ws = await workspace();
    const error = await refuse(ws, await readFile(fixture('fixture.mkv')), 'mp4', 'webm', 'CONTENT_MISMATCH');
    expect(error.details).toMatchObject({ declared: 'mp4', detected: 'matroska,webm' });
  });

  it('refuses audio to a video format: an m4a declared mp4 has no picture', async () => {
    const ws = await workspace();
    const error = await refuse(
      ws,
      await readFile(fixture('fixture.m4a')),
      'mp4',
      'webm',
      'UNSUPPORTED_CONVERSION',
    );
    expect(error.details).toMatchObject({ reason: 'no-video-stream' });
    // Through the engine: ISO BMFF audio passes detection as mp4, and the converter refuses it.
    const engineTemp = await tempDir();
    const work = await tempDir();
    const engine = createEngine({ converters: [converter], tempDir: engineTemp });
    const input = join(work, 'song.mp4');
    await copyFile(fixture('fixture.m4a'), input);
    await expectCode(engine.convertFile(input, join(work, 'out.gif')), 'UNSUPPORTED_CONVERSION');
    expect(await readdir(engineTemp)).toEqual([]);
  });

  it('refuses a silent video to an audio format', async () => {
    const ws = await workspace();
    const silent = join(ws.inputs, 'silent.mp4');
    execFileSync('ffmpeg', ['-v', 'error', '-i', fixture('fixture.mp4'), '-an', '-c', 'copy', silent]);
    const error = await refuse(ws, await readFile(silent), 'mp4', 'mp3', 'UNSUPPORTED_CONVERSION');
    expect(error.details).toMatchObject({ reason: 'no-audio-stream' });
  });

  it('enforces the duration limit', async () => {
    const ws = await workspace();
    const short = withOptionsParsed(createFfmpegConverter({ engine: 'native', maxDurationSeconds: 1 }));
    const error = await expectCode(short.convert(context(ws, 'wav', 'mp3')), 'INPUT_LIMIT_EXCEEDED');
    expect(error.details).toMatchObject({ maxDurationSeconds: 1 });
    await expectNoLeftovers(ws);
  });

  it('enforces frame size limits: width, height and pixels, on the input and the requested output', async () => {
    const ws = await workspace();
    const narrow = withOptionsParsed(createFfmpegConverter({ engine: 'native', maxWidth: 32 }));
    await expectCode(narrow.convert(context(ws, 'mp4', 'webm')), 'INPUT_LIMIT_EXCEEDED');
    // The decoder's own limit refuses the frame while probing, before it is allocated.
    const tiny = await expectCode(
      converter.convert(context(ws, 'mp4', 'webm', { limits: { maxPixels: 1000 } })),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(JSON.stringify(tiny.details)).toMatch(/max pixel count/);
    const upscale = await expectCode(
      converter.convert(
        context(ws, 'mp4', 'webm', { options: { width: 8000 }, limits: { maxPixels: 10_000_000 } }),
      ),
      'INPUT_LIMIT_EXCEEDED',
    );
    expect(upscale.message).toMatch(/requested output is 8000x6000/);
    await expectNoLeftovers(ws);
  });

  it('cancels mid-way: CANCELED, the ffmpeg process killed and reaped, nothing left behind', async () => {
    const ws = await workspace();
    const pids: number[] = [];
    const controller = new AbortController();
    const progress: number[] = [];
    const started = Date.now();
    const ctx = context(ws, 'mp4', 'webm', {
      signal: controller.signal,
      onProgress: (fraction) => {
        progress.push(fraction);
        if (fraction > 0.05) controller.abort();
      },
    });
    await expectCode(pacedConverter(pids).convert(ctx), 'CANCELED');
    expect(Date.now() - started).toBeLessThan(PACED_SECONDS * 1000);
    expect(progress.at(-1)).toBeLessThan(0.9);
    expect(pids).toHaveLength(1);
    expect(alive(pids[0] ?? 0)).toBe(false);
    await expectNoLeftovers(ws);
  });

  it('times out: CONVERSION_TIMEOUT when the signal aborts with a TimeoutError', async () => {
    const ws = await workspace();
    const pids: number[] = [];
    const ctx = context(ws, 'mp4', 'webm', { signal: AbortSignal.timeout(800) });
    await expectCode(pacedConverter(pids).convert(ctx), 'CONVERSION_TIMEOUT');
    expect(pids).toHaveLength(1);
    expect(pids.some(alive)).toBe(false);
    await expectNoLeftovers(ws);
  });

  it('times out through the engine, with the engine temp dir emptied', async () => {
    const engineTemp = await tempDir();
    const work = await tempDir();
    const pids: number[] = [];
    const engine = createEngine({ converters: [pacedConverter(pids)], tempDir: engineTemp, timeoutMs: 800 });
    await expectCode(
      engine.convertFile(fixture('fixture.mp4'), join(work, 'out.webm')),
      'CONVERSION_TIMEOUT',
    );
    // The engine answers at once; the converter's own cleanup finishes right after.
    expect(await emptyAfterCleanup(engineTemp)).toEqual([]);
    for (let i = 0; i < 40 && pids.some(alive); i++) await sleep(50);
    expect(pids.some(alive)).toBe(false);
    expect(await readdir(work)).toEqual([]);
  });
});
