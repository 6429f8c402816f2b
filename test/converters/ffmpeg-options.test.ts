/**
 * Options of the ffmpeg converter: the strict per-target schema (what is refused and why), and
 * what each option does to the output as ffprobe sees it: size, fps, trim, mute, channels,
 * sample rate, codec choice, bitrates.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FfmpegPlan } from '../../src/converters/ffmpeg/ffmpeg-args.js';
import { createFfmpegConverter, mediaOptionsSchema } from '../../src/converters/ffmpeg/index.js';
import { parseBitrate } from '../../src/converters/ffmpeg/media-options.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  decodedAudioSeconds,
  expectCode,
  expectNoLeftovers,
  FFMPEG_AVAILABLE,
  FFMPEG_INSTALL,
  fixture,
  probeFile,
  videoSeconds,
  workspace,
} from './ffmpeg-helpers.js';

function issues(to: string, options: Record<string, unknown>): string[] {
  const parsed = mediaOptionsSchema(to).safeParse(options);
  return parsed.success
    ? []
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('ffmpeg options schema', () => {
  it('accepts the documented options per target kind', () => {
    expect(
      issues('mp4', {
        videoCodec: 'hevc',
        audioCodec: 'mp3',
        crf: 28,
        width: 640,
        height: 360,
        fps: 29.97,
        start: 1.5,
        duration: 10,
        audioChannels: 2,
        sampleRate: 44100,
        audioBitrate: '128k',
      }),
    ).toEqual([]);
    expect(issues('webm', { videoBitrate: '1.5M', mute: true })).toEqual([]);
    expect(issues('gif', { width: 321, fps: 12, start: 0, duration: 3 })).toEqual([]);
    expect(issues('mp3', { audioBitrate: '192k', audioChannels: 1, sampleRate: 22050 })).toEqual([]);
    expect(issues('flac', { sampleRate: 96000, audioChannels: 6 })).toEqual([]);
    expect(issues('ogg', { audioCodec: 'opus' })).toEqual([]);
    expect(issues('gif', { stripMetadata: false })).toEqual([]);
  });

  it('rejects keys that mean nothing for the target, and unknown keys', () => {
    expect(issues('mp3', { videoCodec: 'h264' })).not.toEqual([]);
    expect(issues('mp3', { width: 640 })).not.toEqual([]);
    expect(issues('mp3', { mute: true })).not.toEqual([]);
    expect(issues('flac', { audioBitrate: '128k' })).not.toEqual([]); // lossless: no bitrate
    expect(issues('gif', { audioCodec: 'aac' })).not.toEqual([]);
    expect(issues('mp4', { quality: 80 })).not.toEqual([]);
    expect(issues('mp4', { videocodec: 'h264' })).not.toEqual([]);
  });

  it('only offers codecs the container holds', () => {
    expect(issues('webm', { videoCodec: 'h264' })[0]).toMatch(/^videoCodec/);
    expect(issues('webm', { audioCodec: 'aac' })[0]).toMatch(/^audioCodec/);
    expect(issues('mp4', { videoCodec: 'theora' })).not.toEqual([]);
    expect(issues('wmv', { videoCodec: 'wmv2' })).toEqual([]);
  });

  it('checks values and combinations, naming the option', () => {
    expect(issues('mp4', { width: 641 })).toEqual(['width: Expected an even number']);
    expect(issues('mp4', { width: 8194 })[0]).toMatch(/^width/);
    expect(issues('mp4', { crf: 52 })[0]).toMatch(/^crf: Expected at most 51 for h264/);
    expect(issues('webm', { crf: 60 })).toEqual([]); // vp9 goes to 63
    expect(issues('avi', { crf: 20 })[0]).toMatch(/^crf: mpeg4 has no constant-quality mode/);
    expect(issues('mp4', { crf: 20, videoBitrate: '1M' })[0]).toMatch(/crf or videoBitrate/);
    expect(issues('mp4', { videoBitrate: 'fast' })[0]).toMatch(/^videoBitrate/);
    expect(issues('mp4', { audioBitrate: '5M' })[0]).toMatch(/^audioBitrate/);
    expect(issues('mp3', { audioChannels: 6 })[0]).toMatch(/^audioChannels: Expected at most 2 for mp3/);
    expect(issues('opus', { sampleRate: 44100 })[0]).toMatch(/^sampleRate: Expected one of 48000/);
    expect(issues('ac3', { sampleRate: 8000 })).not.toEqual([]);
    expect(issues('mp4', { mute: true, audioBitrate: '64k' })[0]).toMatch(/^audioBitrate: mute/);
    expect(issues('mp4', { duration: 0 })[0]).toMatch(/^duration/);
    expect(issues('mp4', { start: -1 })[0]).toMatch(/^start/);
    expect(issues('mp4', { fps: 0 })[0]).toMatch(/^fps/);
  });

  it('uses the converter limits for sizes, and has no options for formats it does not write', () => {
    const converter = withOptionsParsed(createFfmpegConverter({ maxWidth: 1920, maxHeight: 1080 }));
    expect(converter.optionsSchema?.('mp4').safeParse({ width: 2560 }).success).toBe(false);
    expect(converter.optionsSchema?.('mp4').safeParse({ width: 1920 }).success).toBe(true);
    expect(mediaOptionsSchema('png').safeParse({}).success).toBe(true);
    expect(mediaOptionsSchema('png').safeParse({ width: 2 }).success).toBe(false);
  });

  it('parses bitrates', () => {
    expect(parseBitrate('128k')).toBe(128_000);
    expect(parseBitrate('1.5M')).toBe(1_500_000);
    expect(parseBitrate('64000')).toBe(64_000);
    for (const bad of ['', 'k', '1.5', '-1k', '1e6', '12 k', '0k', '1G', '128kbps']) {
      expect(parseBitrate(bad), bad).toBeUndefined();
    }
  });
});

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'ffmpeg options on real conversions', () => {
  let plan: FfmpegPlan | undefined;
  const converter = withOptionsParsed(createFfmpegConverter({ engine: 'native', onPlan: (p) => (plan = p) }));

  async function convert(from: string, to: string, options: Record<string, unknown>) {
    const ws = await workspace();
    const ctx = context(ws, from, to, { options });
    await converter.convert(ctx);
    return { output: probeFile(ctx.outputPath), path: ctx.outputPath };
  }

  it('resizes keeping the aspect ratio: width alone, height alone, both as a box', async () => {
    expect((await convert('mp4', 'mp4', { width: 32 })).output.video).toMatchObject({
      width: 32,
      height: 24,
    });
    expect((await convert('webm', 'mkv', { height: 24 })).output.video).toMatchObject({
      width: 32,
      height: 24,
    });
    expect((await convert('mov', 'mp4', { width: 40, height: 40 })).output.video).toMatchObject({
      width: 40,
      height: 30,
    });
    expect((await convert('mp4', 'gif', { width: 31 })).output.video).toMatchObject({
      width: 31,
      height: 23,
    });
    expect(plan?.video).toBe('encode');
  });

  it('changes the frame rate, keeping the duration', async () => {
    const { output, path } = await convert('mp4', 'mp4', { fps: 5 });
    expect(output.video?.avg_frame_rate).toBe('5/1');
    expect(Number(output.video?.nb_read_packets)).toBe(10);
    expect(Math.abs(videoSeconds(path) - 2)).toBeLessThanOrEqual(0.2 + 1e-6); // one frame at 5 fps
  });

  it('trims to start + duration, video and audio', async () => {
    const video = await convert('mp4', 'webm', { start: 0.5, duration: 1 });
    expect(Math.abs(videoSeconds(video.path) - 1)).toBeLessThanOrEqual(0.1 + 1e-6);
    expect(Math.abs(decodedAudioSeconds(video.path) - 1)).toBeLessThanOrEqual(0.1);
    const audio = await convert('wav', 'flac', { start: 0.25, duration: 1.5 });
    expect(Math.abs(decodedAudioSeconds(audio.path) - 1.5)).toBeLessThanOrEqual(0.1);
    const tail = await convert('aiff', 'wav', { start: 1.5 });
    expect(Math.abs(decodedAudioSeconds(tail.path) - 0.5)).toBeLessThanOrEqual(0.1);
    expect(plan?.audio).toBe('encode'); // a copied stream could only be cut at packet boundaries
  });

  it('refuses a start at or past the end of the input', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'mp4', 'webm', { options: { start: 5 } })),
      'INVALID_OPTIONS',
    );
    await expectNoLeftovers(ws);
  });

  it('mutes: no audio stream, video still copied', async () => {
    const { output } = await convert('mp4', 'mp4', { mute: true });
    expect(output.streams.map((s) => s.codec_type)).toEqual(['video']);
    expect(plan?.video).toBe('copy');
  });

  it('sets audio channels and sample rate', async () => {
    const mp3 = await convert('wav', 'mp3', { audioChannels: 2, sampleRate: 22050 });
    expect(mp3.output.audio).toMatchObject({ channels: 2, sample_rate: '22050' });
    const m4a = await convert('mp4', 'm4a', { sampleRate: 16000 });
    expect(m4a.output.audio).toMatchObject({ channels: 1, sample_rate: '16000', codec_name: 'aac' });
  });

  it('picks the nearest sample rate the codec takes when the source has another', async () => {
    // The fixtures are 8 kHz; MP2 starts at 16 kHz and AC-3 at 32 kHz.
    expect((await convert('wav', 'ac3', {})).output.audio?.sample_rate).toBe('32000');
    expect((await convert('wav', 'opus', {})).output.audio?.sample_rate).toBe('48000');
    expect((await convert('mp4', 'mpeg', {})).output.audio).toMatchObject({
      codec_name: 'mp2',
      sample_rate: '16000',
    });
  });

  it('uses the chosen codecs', async () => {
    const mkv = await convert('mp4', 'mkv', { videoCodec: 'vp9', audioCodec: 'opus' });
    expect([mkv.output.video?.codec_name, mkv.output.audio?.codec_name]).toEqual(['vp9', 'opus']);
    const hevc = await convert('mp4', 'mp4', { videoCodec: 'hevc' });
    expect(hevc.output.video?.codec_name).toBe('hevc');
    expect(plan?.args).toEqual(expect.arrayContaining(['-tag:v', 'hvc1']));
    const ogg = await convert('wav', 'ogg', { audioCodec: 'flac' });
    expect(ogg.output.audio?.codec_name).toBe('flac');
  });

  it('keeps a stream copied when the chosen codec is what it already is', async () => {
    await convert('mov', 'mp4', { videoCodec: 'h264', audioCodec: 'aac' });
    expect([plan?.video, plan?.audio]).toEqual(['copy', 'copy']);
  });

  it('passes bitrates to the encoders', async () => {
    const { output } = await convert('mp4', 'mp4', { videoBitrate: '200k', audioBitrate: '24k' });
    expect(plan?.args.join(' ')).toMatch(/-b:v 200000 .*-b:a 24000/);
    expect([output.video?.codec_name, output.audio?.codec_name]).toEqual(['h264', 'aac']);
  });

  it('strips tags (a GPS location among them) unless told to keep them', async () => {
    const ws = await workspace();
    const tagged = join(ws.inputs, 'tagged.mp4');
    execFileSync('ffmpeg', [
      '-v',
      'error',
      '-i',
      fixture('fixture.mp4'),
      '-metadata',
      'title=Holiday',
      '-metadata',
      'location=+48.8584+002.2945/',
      '-c',
      'copy',
      tagged,
    ]);
    const tags = (path: string) =>
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'format_tags',
        '-of',
        'json',
        path,
      ]).toString();
    const stripped = context(ws, 'mp4', 'mov', {
      inputPath: tagged,
      outputPath: join(ws.outputs, 'stripped.mov'),
    });
    await converter.convert(stripped);
    expect(tags(stripped.outputPath)).not.toMatch(/Holiday|48\.8584/);
    expect([plan?.video, plan?.audio]).toEqual(['copy', 'copy']);
    const kept = context(ws, 'mp4', 'mov', {
      inputPath: tagged,
      outputPath: join(ws.outputs, 'kept.mov'),
      options: { stripMetadata: false },
    });
    await converter.convert(kept);
    expect(tags(kept.outputPath)).toMatch(/Holiday/);
    expect(tags(kept.outputPath)).toMatch(/48\.8584/);
  });

  it('applies the converter thread count to decoding and encoding', async () => {
    const threaded = withOptionsParsed(
      createFfmpegConverter({ engine: 'native', threads: 1, onPlan: (p) => (plan = p) }),
    );
    const ws = await workspace();
    await threaded.convert(context(ws, 'mp4', 'webm'));
    expect(plan?.args.filter((arg) => arg === '-threads')).toHaveLength(2);
  });
});
