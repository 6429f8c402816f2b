/**
 * The ffmpeg converter on the native engine: declared edges, every video fixture to mp4, webm,
 * gif, one more video format and one audio format, every audio fixture to mp3, opus, wav, flac
 * and one more, GIF to video, each output checked with ffprobe (codecs, stream count, duration,
 * size); stream copy; progress and CPU time. Options are in ffmpeg-options.test.ts, hostile inputs
 * and cancelation in ffmpeg-inputs.test.ts, the runner itself in ffmpeg-runner.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { FfmpegPlan } from '../../src/converters/ffmpeg/ffmpeg-args.js';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  audioTolerance,
  context,
  decodedAudioSeconds,
  FFMPEG_AVAILABLE,
  FFMPEG_INSTALL,
  FIXTURE_SECONDS,
  fixture,
  probeFile,
  videoSeconds,
  workspace,
} from './ffmpeg-helpers.js';

const VIDEO = ['mp4', 'webm', 'mkv', 'mov', 'avi', 'flv', 'wmv', 'mpeg', '3gp', 'ogv', 'm4v', 'ts'];
const AUDIO = ['mp3', 'wav', 'ogg', 'flac', 'aac', 'm4a', 'opus', 'wma', 'aiff', 'ac3'];

/** The codecs a conversion writes when it encodes: [video, audio] per target. */
const DEFAULT_CODECS: Record<string, [string | undefined, string | undefined]> = {
  mp4: ['h264', 'aac'],
  webm: ['vp9', 'opus'],
  mkv: ['h264', 'aac'],
  mov: ['h264', 'aac'],
  avi: ['mpeg4', 'mp3'],
  flv: ['h264', 'aac'],
  wmv: ['wmv2', 'wmav2'],
  mpeg: ['mpeg2video', 'mp2'],
  '3gp': ['h264', 'aac'],
  ogv: ['theora', 'vorbis'],
  m4v: ['h264', 'aac'],
  ts: ['h264', 'aac'],
  gif: ['gif', undefined],
  mp3: [undefined, 'mp3'],
  wav: [undefined, 'pcm_s16le'],
  ogg: [undefined, 'vorbis'],
  flac: [undefined, 'flac'],
  aac: [undefined, 'aac'],
  m4a: [undefined, 'aac'],
  opus: [undefined, 'opus'],
  wma: [undefined, 'wmav2'],
  aiff: [undefined, 'pcm_s16be'],
  ac3: [undefined, 'ac3'],
};

/** What each fixture holds (made by scripts/make-media-fixtures.sh): [video, audio, width, height]. */
const SOURCES: Record<string, [string | undefined, string, number?, number?]> = {
  mp4: ['h264', 'aac', 64, 48],
  webm: ['vp8', 'vorbis', 64, 48],
  mkv: ['h264', 'aac', 64, 48],
  mov: ['h264', 'aac', 64, 48],
  avi: ['mpeg4', 'pcm_u8', 64, 48],
  flv: ['flv1', 'aac', 64, 48],
  wmv: ['wmv2', 'wmav2', 64, 48],
  mpeg: ['mpeg1video', 'mp2', 64, 48],
  '3gp': ['h263', 'aac', 128, 96],
  ogv: ['theora', 'vorbis', 64, 48],
  m4v: ['h264', 'aac', 64, 48],
  ts: ['mpeg2video', 'mp2', 64, 48],
};

const converter = withOptionsParsed(createFfmpegConverter({ engine: 'native' }));

/** The fixtures never change: probe each once (ffprobe start-up is most of a probe's cost). */
const sourceFacts = new Map<string, { probe: ReturnType<typeof probeFile>; seconds: number | undefined }>();
function factsOf(path: string) {
  let facts = sourceFacts.get(path);
  if (!facts) {
    const probe = probeFile(path);
    facts = { probe, seconds: probe.video ? videoSeconds(path) : undefined };
    sourceFacts.set(path, facts);
  }
  return facts;
}

/** Converts a fixture and checks the output against the source, as ffprobe sees both. */
async function convertAndCheck(from: string, to: string) {
  const ws = await workspace();
  const progress: number[] = [];
  const plans: FfmpegPlan[] = [];
  const planned = withOptionsParsed(
    createFfmpegConverter({ engine: 'native', onPlan: (plan) => plans.push(plan) }),
  );
  const ctx = context(ws, from, to, { progress });
  const result = await planned.convert(ctx);
  const { probe: source, seconds: sourceSeconds } = factsOf(ctx.inputPath);
  const output = probeFile(ctx.outputPath);
  const [videoCodec, audioCodec] = DEFAULT_CODECS[to] ?? [];
  const plan = plans[0];

  // Codecs: the target's default, or the source's own when the stream was copied.
  if (videoCodec) {
    expect(output.video?.codec_name).toBe(plan?.video === 'copy' ? source.video?.codec_name : videoCodec);
  } else {
    expect(output.video).toBeUndefined();
  }
  if (audioCodec && source.audio) {
    expect(output.audio?.codec_name).toBe(plan?.audio === 'copy' ? source.audio.codec_name : audioCodec);
  } else {
    expect(output.audio).toBeUndefined();
  }
  expect(output.streams).toHaveLength((videoCodec ? 1 : 0) + (audioCodec && source.audio ? 1 : 0));

  // Duration: video by frame timestamps, audio by decoded samples.
  if (output.video && source.video) {
    // 0.1 s is one frame at the fixtures' 10 fps. Containers that cannot signal an audio encoder's
    // priming (AVI, ASF, MPEG) shift the whole timeline by it, so its framing is allowed for too.
    const tolerance = audioTolerance(output.audio) + 1e-6;
    expect(Math.abs(videoSeconds(ctx.outputPath) - (sourceSeconds ?? 0))).toBeLessThanOrEqual(tolerance);
    const width = source.video.width ?? 0;
    const height = source.video.height ?? 0;
    expect([output.video.width, output.video.height]).toEqual([width, height]);
  }
  if (output.audio) {
    const seconds = decodedAudioSeconds(ctx.outputPath);
    expect(Math.abs(seconds - FIXTURE_SECONDS)).toBeLessThanOrEqual(
      audioTolerance(source.audio, output.audio),
    );
  }

  expect(progress[0]).toBe(0);
  expect(progress.at(-1)).toBe(1);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
  expect(result?.cpuMs).toBeGreaterThan(0);
  return { plan, output };
}

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'ffmpeg converter (native)', () => {
  it('declares every video pair, every audio pair, video to audio and gif, gif to video', () => {
    const pairs = new Set(converter.edges.map((edge) => `${edge.from}->${edge.to}`));
    expect(pairs.size).toBe(converter.edges.length);
    for (const from of VIDEO) {
      for (const to of [...VIDEO, ...AUDIO, 'gif']) expect(pairs).toContain(`${from}->${to}`);
    }
    for (const from of AUDIO) for (const to of AUDIO) expect(pairs).toContain(`${from}->${to}`);
    for (const to of VIDEO) expect(pairs).toContain(`gif->${to}`);
    expect(converter.edges).toHaveLength(12 * 23 + 10 * 10 + 12);
    // The sharp converter owns the still images.
    expect([...pairs].some((pair) => /bmp|ico|png|jpg/.test(pair))).toBe(false);
    expect(
      [...pairs].some((pair) => /^(mp3|wav|ogg|flac|aac|m4a|opus|wma|aiff|ac3)->(mp4|gif)/.test(pair)),
    ).toBe(false);
  });

  it('costs video re-encoding most and marks only wav, flac and aiff targets lossless', () => {
    const edge = (from: string, to: string) => converter.edges.find((e) => e.from === from && e.to === to);
    expect(edge('mp4', 'webm')?.cost).toBe(10);
    expect(edge('mp4', 'gif')?.cost).toBe(8);
    expect(edge('gif', 'mp4')?.cost).toBe(8);
    expect(edge('mp4', 'mp3')?.cost).toBe(4);
    expect(edge('mp3', 'ogg')?.cost).toBe(3);
    expect(edge('mp3', 'wav')?.lossy).toBe(false);
    expect(edge('mp4', 'flac')?.lossy).toBe(false);
    expect(edge('flac', 'aiff')?.lossy).toBe(false);
    expect(edge('wav', 'mp3')?.lossy).toBe(true);
    expect(edge('mkv', 'mp4')?.lossy).toBe(true);
  });

  it('reports the native engine and its version', async () => {
    const availability = await converter.available();
    expect(availability.ok).toBe(true);
    expect(availability.version).toMatch(/^ffmpeg \S+ \(native, .*ffmpeg\)$/);
  });

  // Each video fixture to mp4, webm, gif, one more video format and one audio format, so every
  // target format is written at least once.
  VIDEO.forEach((from, i) => {
    const otherVideo = VIDEO[(i + 2) % VIDEO.length] ?? 'mkv';
    const audio = AUDIO[i % AUDIO.length] ?? 'mp3';
    for (const to of new Set(['mp4', 'webm', 'gif', otherVideo, audio])) {
      it(`converts ${from} to ${to}`, async () => {
        await convertAndCheck(from, to);
      });
    }
  });

  AUDIO.forEach((from, i) => {
    const extra = ['aac', 'm4a', 'ogg', 'wma', 'aiff', 'ac3'][i % 6] ?? 'ogg';
    for (const to of new Set(['mp3', 'opus', 'wav', 'flac', extra])) {
      it(`converts ${from} to ${to}`, async () => {
        await convertAndCheck(from, to);
      });
    }
  });

  it.each(['mp4', 'webm', 'avi', 'mkv'])('converts the animated gif fixture to %s', async (to) => {
    const ws = await workspace();
    const ctx = context(ws, 'gif', to);
    await converter.convert(ctx);
    const output = probeFile(ctx.outputPath);
    expect(output.streams).toHaveLength(1);
    expect(output.video?.codec_name).toBe(DEFAULT_CODECS[to]?.[0]);
    expect([output.video?.width, output.video?.height]).toEqual([32, 24]);
    expect(Number(output.video?.nb_read_packets)).toBeGreaterThanOrEqual(3);
  });

  it('trims odd frame sizes to even ones for 4:2:0 codecs, and keeps them for gif', async () => {
    const ws = await workspace();
    const odd = join(ws.inputs, 'odd.gif');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=31x23:rate=10:duration=1',
      odd,
    ]);
    for (const [to, size] of [
      ['mp4', [30, 22]],
      ['webm', [30, 22]],
      ['gif', [31, 23]],
    ] as const) {
      const ctx = context(ws, 'gif', to, { inputPath: odd, outputPath: join(ws.outputs, `odd.${to}`) });
      await converter.convert(ctx);
      const { video } = probeFile(ctx.outputPath);
      expect([video?.width, video?.height], to).toEqual(size);
    }
  });

  it('remuxes mov(h264, aac) to mp4 with stream copy: same codecs, no encoder run', async () => {
    const { plan, output } = await convertAndCheck('mov', 'mp4');
    expect(plan?.video).toBe('copy');
    expect(plan?.audio).toBe('copy');
    expect(plan?.args).toEqual(expect.arrayContaining(['-c:v', 'copy', '-c:a', 'copy']));
    expect(plan?.args.join(' ')).not.toMatch(/libx264|-c:a aac/);
    expect([output.video?.codec_name, output.audio?.codec_name]).toEqual(['h264', 'aac']);
  });

  it('copies what the target takes and encodes only the rest: mkv(h264, aac) -> webm encodes both, avi -> mkv only audio', async () => {
    expect((await convertAndCheck('mkv', 'mp4')).plan?.video).toBe('copy');
    const avi = await convertAndCheck('avi', 'mkv');
    expect([avi.plan?.video, avi.plan?.audio]).toEqual(['copy', 'encode']); // pcm_u8 is not kept in mkv
    const webm = await convertAndCheck('mkv', 'webm');
    expect([webm.plan?.video, webm.plan?.audio]).toEqual(['encode', 'encode']);
    const ogg = await convertAndCheck('webm', 'ogg');
    expect(ogg.plan?.audio).toBe('copy'); // the vorbis soundtrack, as it is
  });

  it('makes an mp4 a browser plays from avi (MPEG-4 Part 2 + AC-3): H.264 + AAC, unless keepStreams', async () => {
    // The survey's XviD + AC-3 avi came out an mp4 no browser plays: both streams had been copied.
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'xvid-ac3.avi');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-i',
      fixture('fixture.avi'),
      '-c:v',
      'copy',
      '-c:a',
      'ac3',
      inputPath,
    ]);
    const plans: FfmpegPlan[] = [];
    const planned = withOptionsParsed(
      createFfmpegConverter({ engine: 'native', onPlan: (plan) => plans.push(plan) }),
    );
    const web = context(ws, 'avi', 'mp4', { inputPath, outputPath: join(ws.outputs, 'web.mp4') });
    await planned.convert(web);
    const played = probeFile(web.outputPath);
    expect([played.video?.codec_name, played.audio?.codec_name]).toEqual(['h264', 'aac']);
    const kept = context(ws, 'avi', 'mp4', {
      inputPath,
      outputPath: join(ws.outputs, 'kept.mp4'),
      options: { keepStreams: true },
    });
    await planned.convert(kept);
    expect([plans[1]?.video, plans[1]?.audio]).toEqual(['copy', 'copy']);
    const remuxed = probeFile(kept.outputPath);
    expect([remuxed.video?.codec_name, remuxed.audio?.codec_name]).toEqual(['mpeg4', 'ac3']);
  });

  it('extracts the soundtrack without decoding the video', async () => {
    const { plan } = await convertAndCheck('mp4', 'm4a');
    expect(plan?.args).toContain('-vn');
    expect(plan?.args.join(' ')).not.toMatch(/-map 0:0/);
  });

  it('runs on fixtures that hold what these tests assume', () => {
    for (const [format, [video, audio, width, height]] of Object.entries(SOURCES)) {
      const probed = probeFile(fixture(`fixture.${format}`));
      expect([
        probed.video?.codec_name,
        probed.audio?.codec_name,
        probed.video?.width,
        probed.video?.height,
      ]).toEqual([video, audio, width, height]);
    }
  });

  it('leaves nothing in tempDir and writes the output only at outputPath', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'wav', 'mp3');
    await converter.convert(ctx);
    expect((await stat(ctx.outputPath)).size).toBeGreaterThan(0);
    expect(await readdir(ws.temp)).toEqual([]);
    expect(await readdir(ws.outputs)).toEqual(['out.mp3']);
    expect(join(ws.outputs, 'out.mp3')).toBe(ctx.outputPath);
  });
});
