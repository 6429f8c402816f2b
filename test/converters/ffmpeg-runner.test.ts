/**
 * The native ffmpeg runner and the pieces around it: progress parsing, ffprobe JSON parsing,
 * stderr scrubbing, CPU time from the OS (not wall time), abort (process killed and reaped,
 * partial output removed), missing binaries, engine selection and the factory's option checks.
 */
import { readFileSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWasmRunner, runnerSelector } from '../../src/converters/ffmpeg/engine-select.js';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { mapRunnerError } from '../../src/converters/ffmpeg/media-errors.js';
import { createNativeFfmpegRunner, stderrLines } from '../../src/converters/ffmpeg/native-runner.js';
import { parseProbeJson } from '../../src/converters/ffmpeg/probe-json.js';
import { ProgressParser } from '../../src/converters/ffmpeg/progress.js';
import type { FfmpegRunner } from '../../src/converters/ffmpeg/runner.js';
import { FileconvError } from '../../src/core/errors.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import { expectCode, FFMPEG_AVAILABLE, FFMPEG_INSTALL, fixture, workspace } from './ffmpeg-helpers.js';

describe('ProgressParser', () => {
  it('turns out_time_us over the expected duration into forward-only fractions below 1', () => {
    const fractions: number[] = [];
    let ended = 0;
    const parser = new ProgressParser(2, { onFraction: (f) => fractions.push(f), onEnd: () => (ended += 1) });
    parser.push('frame=1\nout_time_us=N/A\nprogress=continue\nout_time_us=50');
    parser.push('0000\nout_time_ms=500000\nprogress=continue\nout_time_us=400000\n');
    parser.push('out_time_us=1000000\r\nout_time_us=3000000\nprogress=end\n');
    expect(fractions).toEqual([0.25, 0.5, 0.99]);
    expect(ended).toBe(1);
  });

  it('reports nothing without a duration, and ignores junk', () => {
    const fractions: number[] = [];
    const parser = new ProgressParser(undefined, { onFraction: (f) => fractions.push(f) });
    parser.push('out_time_us=1000000\n');
    new ProgressParser(1, { onFraction: (f) => fractions.push(f) }).push(
      `${'x'.repeat(10_000)}\nout_time_us=-5\n`,
    );
    expect(fractions).toEqual([]);
  });
});

describe('parseProbeJson', () => {
  it('reads streams, rates, cover art and duration', () => {
    const probe = parseProbeJson(
      JSON.stringify({
        streams: [
          {
            index: 0,
            codec_type: 'video',
            codec_name: 'h264',
            width: 64,
            height: 48,
            avg_frame_rate: '30000/1001',
          },
          { index: 1, codec_type: 'audio', codec_name: 'aac', sample_rate: '44100', channels: 2 },
          {
            index: 2,
            codec_type: 'video',
            codec_name: 'mjpeg',
            width: 10,
            height: 10,
            disposition: { attached_pic: 1 },
          },
          { index: 3, codec_type: 'weird', codec_name: 'x' },
          { index: -1, codec_type: 'audio' },
        ],
        format: { format_name: 'mov,mp4,m4a,3gp,3g2,mj2', duration: '12.5' },
      }),
    );
    expect(probe.formatName).toBe('mov,mp4,m4a,3gp,3g2,mj2');
    expect(probe.durationSeconds).toBe(12.5);
    expect(probe.streams).toHaveLength(3);
    expect(probe.streams[0]?.fps).toBeCloseTo(29.97, 2);
    expect(probe.streams[1]).toMatchObject({ kind: 'audio', sampleRate: 44100, channels: 2 });
    expect(probe.streams[2]?.attachedPicture).toBe(true);
  });

  it('treats odd values as unknown and an empty answer as CORRUPT_INPUT', () => {
    const probe = parseProbeJson(
      JSON.stringify({
        streams: [{ index: 0, codec_type: 'video', width: 'NaN', height: -3, avg_frame_rate: '0/0' }],
        format: { format_name: 'matroska,webm', duration: 'N/A' },
      }),
    );
    expect(probe.durationSeconds).toBeUndefined();
    expect(probe.streams[0]).toEqual({ index: 0, kind: 'video', codec: 'unknown' });
    expect(() => parseProbeJson('{\n\n}')).toThrow(FileconvError);
    expect(() => parseProbeJson('not json')).toThrow(/ffprobe could not describe/);
  });
});

describe('mapRunnerError', () => {
  it("reads a full disk in ffmpeg's words as NO_SPACE, before the damaged-output lines that follow it", () => {
    const failed = new FileconvError('CONVERSION_FAILED', 'ffmpeg exited with code 1', {
      details: {
        log: [
          '[matroska @ 0x5] Error writing packet: No space left on device',
          'Error while decoding stream #0:0: Invalid data found when processing input',
        ],
      },
    });
    expect(mapRunnerError(failed).code).toBe('NO_SPACE');
  });
});

describe('stderrLines', () => {
  it('keeps the last lines and hides the server paths', () => {
    const lines = stderrLines(
      'a\n\n[mov @ 0x1] /srv/uploads/abc/input.mp4: bad\nfile:/tmp/w/step-1.webm: failed\n',
      {
        'file:/tmp/w/step-1.webm': '<output>',
      },
    );
    expect(lines).toEqual(['a', '[mov @ 0x1] <file>: bad', '<output>: failed']);
  });
});

describe('engine selection', () => {
  const fake: FfmpegRunner = {
    kind: 'wasm',
    available: async () => ({ ok: true, version: 'fake' }),
    probe: async () => {
      throw new Error('unused');
    },
    run: async () => ({ cpuMs: 0 }),
  };

  it('names the package to install when the WebAssembly runner cannot be loaded', async () => {
    const missing = Object.assign(new Error('Cannot find module'), { code: 'ERR_MODULE_NOT_FOUND' });
    const error = await loadWasmRunner(() => Promise.reject(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileconvError);
    expect((error as FileconvError).code).toBe('ENGINE_UNAVAILABLE');
    expect((error as FileconvError).details).toMatchObject({ install: 'npm install @ffmpeg/core' });
  });

  it('never picks a WebAssembly runner that is not available (the module imports without @ffmpeg/core)', async () => {
    const missingCore: FfmpegRunner = {
      ...fake,
      available: async () => ({
        ok: false,
        reason: "@ffmpeg/core is not installed (Cannot find module '@ffmpeg/core')",
        install: 'npm install @ffmpeg/core',
      }),
    };
    const load = () => loadWasmRunner(async () => ({ createWasmFfmpegRunner: () => missingCore }));
    const error = await expectCode(load(), 'ENGINE_UNAVAILABLE');
    expect(error.message).toMatch(/@ffmpeg\/core is not installed.*npm install @ffmpeg\/core/);
    expect(error.details).toMatchObject({ install: 'npm install @ffmpeg/core' });

    const wasm = runnerSelector({ engine: 'wasm', native: {}, loadWasm: load });
    await expectCode(wasm(), 'ENGINE_UNAVAILABLE');
    const auto = runnerSelector({
      engine: 'auto',
      native: { ffmpegPath: '/nonexistent/ffmpeg' },
      loadWasm: load,
    });
    const neither = await expectCode(auto(), 'ENGINE_UNAVAILABLE');
    // The system package first, the GPL WebAssembly build after it; one line, no module paths.
    expect(neither.message).toMatch(/no ffmpeg binary .*apt-get install ffmpeg.*npm install @ffmpeg\/core/);
    expect(neither.message).not.toMatch(/\n|Require stack/);
    expect(neither.details).toMatchObject({ install: expect.stringMatching(/^apt-get install ffmpeg/) });
    expect(
      await load().then(
        () => 'loaded',
        () => 'refused',
      ),
    ).toBe('refused');
  });

  it("'auto' falls back to WebAssembly when no binary is found, and uses native when one is", async () => {
    let loads = 0;
    const loadWasm = async () => {
      loads += 1;
      return fake;
    };
    const auto = runnerSelector({ engine: 'auto', native: { ffmpegPath: '/nonexistent/ffmpeg' }, loadWasm });
    expect(await auto()).toBe(fake);
    expect(await auto()).toBe(fake);
    expect(loads).toBe(1);
    if (FFMPEG_AVAILABLE) {
      expect((await runnerSelector({ engine: 'auto', native: {}, loadWasm })()).kind).toBe('native');
    }
    expect((await runnerSelector({ engine: 'wasm', native: {}, loadWasm })()).kind).toBe('wasm');
  });

  it('reports a missing native binary with an install hint instead of throwing', async () => {
    const converter = withOptionsParsed(
      createFfmpegConverter({ engine: 'native', ffmpegPath: '/nonexistent/ffmpeg' }),
    );
    const availability = await converter.available();
    expect(availability).toMatchObject({ ok: false, reason: expect.stringMatching(/not executable/) });
    expect(availability.install).toMatch(/ffmpeg/);
    const runner = createNativeFfmpegRunner({ ffmpegPath: '/nonexistent/ffmpeg' });
    await expectCode(
      runner.probe(fixture('fixture.mp4'), new AbortController().signal),
      'ENGINE_UNAVAILABLE',
    );
  });

  it('takes the binaries from FFMPEG_PATH / FFPROBE_PATH, and never swaps in another one', async () => {
    const saved = { ffmpeg: process.env.FFMPEG_PATH, ffprobe: process.env.FFPROBE_PATH };
    try {
      process.env.FFMPEG_PATH = '/nonexistent/bin/ffmpeg';
      expect(await createNativeFfmpegRunner().available()).toMatchObject({
        ok: false,
        reason: 'FFMPEG_PATH=/nonexistent/bin/ffmpeg is not executable',
      });
      if (FFMPEG_AVAILABLE) {
        process.env.FFMPEG_PATH = '/usr/bin/ffmpeg';
        process.env.FFPROBE_PATH = '/nonexistent/bin/ffprobe';
        expect((await createNativeFfmpegRunner().available()).reason).toBe(
          'FFPROBE_PATH=/nonexistent/bin/ffprobe is not executable',
        );
        delete process.env.FFPROBE_PATH; // then ffprobe is looked for beside ffmpeg
        expect(await createNativeFfmpegRunner().available()).toMatchObject({ ok: true });
      }
    } finally {
      for (const [name, value] of [
        ['FFMPEG_PATH', saved.ffmpeg],
        ['FFPROBE_PATH', saved.ffprobe],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('validates factory options, naming the option', () => {
    const bad: Record<string, unknown>[] = [
      { engine: 'gpu' },
      { threads: 0 },
      { maxDurationSeconds: -1 },
      { maxWidth: 8.5 },
      { runner: {} },
      { ffmpegPath: '' },
      { colour: true },
    ];
    for (const options of bad) {
      const error = (() => {
        try {
          createFfmpegConverter(options);
        } catch (e) {
          return e;
        }
      })();
      expect(error, JSON.stringify(options)).toBeInstanceOf(FileconvError);
      expect((error as FileconvError).code).toBe('INVALID_OPTIONS');
      const name = Object.keys(options)[0] ?? '';
      expect((error as Error).message).toContain(name === 'colour' ? 'colour' : name);
    }
    expect(createFfmpegConverter({ runner: fake }).name).toBe('ffmpeg');
  });
});

/** This process's reaped children's CPU time (cutime + cstime), ms: exact for one child run alone. */
function reapedChildrenMs(): number {
  const text = readFileSync('/proc/self/stat', 'latin1');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'native runner', () => {
  const runner = createNativeFfmpegRunner();
  const signal = () => new AbortController().signal;

  it('probes every media fixture with the safe demuxers', async () => {
    const demuxers: Record<string, string> = {
      mp4: 'mov',
      mkv: 'matroska',
      webm: 'matroska',
      ogv: 'ogg',
      wmv: 'asf',
      ts: 'mpegts',
      mp3: 'mp3',
      aac: 'aac',
      gif: 'gif',
    };
    for (const [format, demuxer] of Object.entries(demuxers)) {
      const probe = await runner.probe(fixture(`fixture.${format}`), signal());
      expect(probe.formatName.split(','), format).toContain(demuxer);
      expect(probe.streams.length).toBeGreaterThan(0);
    }
  });

  it('measures CPU time from the OS: a conversion paced at real time uses far less CPU than wall time', async () => {
    const ws = await workspace();
    const input = fixture('fixture.mp4');
    const output = join(ws.outputs, 'paced.mp4');
    const before = reapedChildrenMs();
    const started = performance.now();
    // -re reads the input at its own pace: ~1 s of waiting for 1 s of video.
    const { cpuMs } = await runner.run({
      args: [
        '-re',
        '-f',
        'mov',
        '-i',
        input,
        '-t',
        '1',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-f',
        'mp4',
        output,
      ],
      inputPath: input,
      outputPath: output,
      signal: signal(),
    });
    const wall = performance.now() - started;
    const reaped = reapedChildrenMs() - before;
    expect(wall).toBeGreaterThan(900);
    expect(cpuMs).toBeGreaterThan(0);
    expect(cpuMs).toBeLessThan(wall / 2);
    // Run alone, the child is the only one reaped: the meter must match the kernel's total.
    if (process.platform === 'linux') expect(Math.abs(cpuMs - reaped)).toBeLessThanOrEqual(20);
  });

  it('reports progress up to 1', async () => {
    const ws = await workspace();
    const input = fixture('fixture.wav');
    const output = join(ws.outputs, 'tone.flac');
    const progress: number[] = [];
    await runner.run({
      args: ['-f', 'wav', '-i', input, '-f', 'flac', output],
      inputPath: input,
      outputPath: output,
      signal: signal(),
      durationSeconds: 2,
      onProgress: (fraction) => progress.push(fraction),
    });
    expect(progress.at(-1)).toBe(1);
  });

  it('fails with CONVERSION_FAILED, the log without paths, and no partial output', async () => {
    const ws = await workspace();
    const input = fixture('fixture.wav');
    const output = join(ws.outputs, 'out.mp3');
    const error = await expectCode(
      runner.run({
        args: ['-f', 'wav', '-i', input, '-c:a', 'no-such-encoder', '-f', 'mp3', output],
        inputPath: input,
        outputPath: output,
        signal: signal(),
      }),
      'CONVERSION_FAILED',
    );
    const log = ((error.details?.log ?? []) as string[]).join('\n');
    expect(log).toMatch(/no-such-encoder/);
    expect(log).not.toContain(ws.outputs);
    expect(log).not.toContain(input);
    expect(await readdir(ws.outputs)).toEqual([]);
  });

  it('kills the process on abort, reaps it, and removes the partial output', async () => {
    const ws = await workspace();
    const input = fixture('fixture.mp4');
    const output = join(ws.outputs, 'endless.mp4');
    const pids: number[] = [];
    const killable = createNativeFfmpegRunner({ onSpawn: (pid) => pids.push(pid) });
    const controller = new AbortController();
    // An endless input loop: only the abort ends it.
    const running = killable.run({
      args: ['-stream_loop', '-1', '-re', '-f', 'mov', '-i', input, '-c:v', 'libx264', '-f', 'mp4', output],
      inputPath: input,
      outputPath: output,
      signal: controller.signal,
      durationSeconds: 2,
      onProgress: () => controller.abort(),
    });
    await expectCode(running, 'CANCELED');
    expect(pids).toHaveLength(1);
    expect(() => process.kill(pids[0] ?? 0, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(await readdir(ws.outputs)).toEqual([]);
  });

  it('refuses a playlist at the probe with UNSAFE_INPUT', async () => {
    const ws = await workspace();
    const list = join(ws.inputs, 'list.mp4');
    await writeFile(list, '#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n/etc/passwd\n#EXT-X-ENDLIST\n');
    await expectCode(runner.probe(list, signal()), 'UNSAFE_INPUT');
  });

  it('answers an already aborted signal without starting anything', async () => {
    const pids: number[] = [];
    const lazy = createNativeFfmpegRunner({ onSpawn: (pid) => pids.push(pid) });
    const controller = new AbortController();
    controller.abort();
    await expectCode(lazy.probe(fixture('fixture.mp4'), controller.signal), 'CANCELED');
    expect(pids).toEqual([]);
  });
});
