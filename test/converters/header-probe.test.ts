/**
 * The common containers are described from their headers (src/converters/ffmpeg/header-probe.ts)
 * as ffprobe describes them, so their jobs start ffmpeg only. Every covered case is compared with
 * the native runner's ffprobe answer; every case a reader must leave to ffprobe (cover art, no
 * Xing header, HE-AAC, fragments, attachments, a live Matroska) must give undefined; truncated
 * and corrupted headers never throw, and a truncated file still fails with a stable code.
 */
import { execFileSync } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { probeFromHeader } from '../../src/converters/ffmpeg/header-probe.js';
import { createFfmpegConverter } from '../../src/converters/ffmpeg/index.js';
import { createNativeFfmpegRunner } from '../../src/converters/ffmpeg/native-runner.js';
import type { MediaProbe } from '../../src/converters/ffmpeg/runner.js';
import { FileconvError } from '../../src/core/errors.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  FFMPEG_AVAILABLE,
  FFMPEG_INSTALL,
  fixture,
  probeCountingRunner,
  probeFile,
  workspace,
} from './ffmpeg-helpers.js';

const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2.5:sample_rate=44100'];
const PICTURE = ['-f', 'lavfi', '-i', 'testsrc2=duration=2.5:size=160x120:rate=25'];
const COVER = ['-i', fixture('fixture.png'), '-map', '0:a', '-map', '1:v', '-disposition:v', 'attached_pic'];
const H264 = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
const AAC = ['-c:a', 'aac', '-ac', '2'];

interface Case {
  ext: string;
  args: string[];
  /** Whether the header reader answers (else it must leave the file to ffprobe). */
  covered: boolean;
}

/** ffmpeg arguments (inputs, codecs) making each variant, by name. */
const CASES: Record<string, Case> = {
  'flac stereo': { ext: 'flac', args: [...TONE, '-ac', '2'], covered: true },
  'flac with cover art': { ext: 'flac', args: [...TONE, ...COVER, '-c:v', 'png'], covered: false },
  'mp3 CBR (Info header)': {
    ext: 'mp3',
    args: [...TONE, '-c:a', 'libmp3lame', '-b:a', '128k'],
    covered: true,
  },
  'mp3 VBR (Xing header)': { ext: 'mp3', args: [...TONE, '-c:a', 'libmp3lame', '-q:a', '4'], covered: true },
  'mp3 MPEG-2 mono': {
    ext: 'mp3',
    args: [...TONE, '-ar', '22050', '-ac', '1', '-c:a', 'libmp3lame'],
    covered: true,
  },
  'mp3 without Xing header': {
    ext: 'mp3',
    args: [...TONE, '-c:a', 'libmp3lame', '-q:a', '4', '-write_xing', '0'],
    covered: false,
  },
  'mp3 with cover art': {
    ext: 'mp3',
    args: [...TONE, ...COVER, '-c:a', 'libmp3lame', '-c:v', 'png'],
    covered: false,
  },
  'ogg vorbis': { ext: 'ogg', args: [...TONE, '-ac', '2', '-c:a', 'libvorbis'], covered: true },
  'ogg opus': { ext: 'opus', args: [...TONE, '-ac', '2', '-c:a', 'libopus'], covered: true },
  'ogg flac': { ext: 'ogg', args: [...TONE, '-c:a', 'flac'], covered: false },
  'm4a aac-lc': { ext: 'm4a', args: [...TONE, ...AAC], covered: true },
  'm4a alac': { ext: 'm4a', args: [...TONE, '-c:a', 'alac'], covered: true },
  'm4a aac at 16 kHz (SBR possible)': { ext: 'm4a', args: [...TONE, ...AAC, '-ar', '16000'], covered: false },
  'mp4 moov at the end': {
    ext: 'mp4',
    args: [...PICTURE, ...TONE, ...H264, ...AAC, '-shortest'],
    covered: true,
  },
  'mp4 faststart': {
    ext: 'mp4',
    args: [...PICTURE, ...TONE, ...H264, ...AAC, '-movflags', '+faststart', '-shortest'],
    covered: true,
  },
  'mp4 mpeg4 + aac': {
    ext: 'mp4',
    args: [...PICTURE, ...TONE, '-c:v', 'mpeg4', ...AAC, '-shortest'],
    covered: true,
  },
  // The muxer writes 2 channels in the entry of this mono mp3; ffprobe reads the stream's 1.
  'mp4 with mp3 audio': {
    ext: 'mp4',
    args: [...PICTURE, ...TONE, ...H264, '-c:a', 'libmp3lame'],
    covered: false,
  },
  'mp4 fragmented': {
    ext: 'mp4',
    args: [...PICTURE, ...TONE, ...H264, ...AAC, '-movflags', 'frag_keyframe+empty_moov', '-shortest'],
    covered: false,
  },
  'mov h264 + aac': { ext: 'mov', args: [...PICTURE, ...TONE, ...H264, ...AAC, '-shortest'], covered: true },
  'mov mjpeg + pcm': {
    ext: 'mov',
    args: [...PICTURE, ...TONE, '-c:v', 'mjpeg', '-c:a', 'pcm_s16le'],
    covered: false,
  },
  '3gp h264 + aac': { ext: '3gp', args: [...PICTURE, ...TONE, ...H264, ...AAC, '-shortest'], covered: true },
  'mkv h264 + aac + subtitles': {
    ext: 'mkv',
    args: [...PICTURE, ...TONE, '-i', fixture('fixture.srt'), ...H264, ...AAC, '-c:s', 'srt', '-shortest'],
    covered: true,
  },
  'mkv with an attachment': {
    ext: 'mkv',
    args: [...PICTURE, ...H264, '-attach', fixture('fixture.png'), '-metadata:s:t', 'mimetype=image/png'],
    covered: false,
  },
  'mkv live (no duration)': { ext: 'mkv', args: [...PICTURE, ...H264, '-live', '1'], covered: false },
  'webm vp9 + opus': {
    ext: 'webm',
    args: [
      ...PICTURE,
      ...TONE,
      '-c:v',
      'libvpx-vp9',
      '-deadline',
      'realtime',
      '-cpu-used',
      '8',
      '-c:a',
      'libopus',
      '-shortest',
    ],
    covered: true,
  },
  'webm vp8 + vorbis': {
    ext: 'webm',
    args: [...PICTURE, ...TONE, '-c:v', 'libvpx', '-deadline', 'realtime', '-c:a', 'libvorbis', '-shortest'],
    covered: true,
  },
};

function make(path: string, args: string[]): void {
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', ...args, path]);
}

const native = createNativeFfmpegRunner();
const ffprobe = (path: string) => native.probe(path, new AbortController().signal);
const fromHeader = async (path: string, format: string) =>
  probeFromHeader(path, format, (await stat(path)).size);

/** The header's answer is ffprobe's: the same fields, durations and rates to a millisecond. */
function expectSame(mine: MediaProbe | undefined, theirs: MediaProbe): void {
  expect(mine).toEqual({
    ...theirs,
    durationSeconds: expect.closeTo(theirs.durationSeconds ?? Number.NaN, 3),
    streams: theirs.streams.map((stream) =>
      stream.fps === undefined ? stream : { ...stream, fps: expect.closeTo(stream.fps, 3) },
    ),
  });
}

describeWithEngine('ffmpeg', FFMPEG_AVAILABLE, FFMPEG_INSTALL, 'a media header', () => {
  for (const [name, { ext, args, covered }] of Object.entries(CASES)) {
    it(`${covered ? 'says what ffprobe says of' : 'leaves to ffprobe'} ${name}`, async () => {
      const ws = await workspace();
      const path = join(ws.inputs, `in.${ext}`);
      make(path, args);
      const mine = await fromHeader(path, ext);
      if (covered) expectSame(mine, await ffprobe(path));
      else expect(mine).toBeUndefined();
    });
  }

  it('says what ffprobe says of the fixtures it covers', async () => {
    const covered: string[] = [];
    for (const ext of [
      'wav',
      'flac',
      'mp3',
      'ogg',
      'opus',
      'm4a',
      'mp4',
      'mov',
      'm4v',
      '3gp',
      'mkv',
      'webm',
    ]) {
      const path = fixture(`fixture.${ext}`);
      const mine = await fromHeader(path, ext);
      if (mine === undefined) continue;
      expectSame(mine, await ffprobe(path));
      covered.push(ext);
    }
    // The MP4 family's and Matroska's fixtures hold 8 kHz AAC (SBR possible), fixture.mp3 has no
    // Xing header, fixture.3gp holds H.263: ffprobe describes those.
    expect(covered).toEqual(['wav', 'flac', 'ogg', 'opus', 'webm']);
  });

  it('never throws on a truncated or corrupted header, and answers only with sane numbers', async () => {
    const ws = await workspace();
    for (const [name, { ext, args, covered }] of Object.entries(CASES)) {
      if (!covered) continue;
      const path = join(ws.inputs, `whole.${ext}`);
      make(path, args);
      const bytes = await readFile(path);
      const damaged = join(ws.inputs, `damaged.${ext}`);
      const variants: Buffer[] = [0, 4, 12, 40, 200, 1000, bytes.length >> 1, bytes.length - 1].map((cut) =>
        bytes.subarray(0, cut),
      );
      // Bytes overwritten in the headers at both ends: deterministic, so a failure reproduces.
      for (let i = 0; i < 40; i++) {
        const copy = Buffer.from(bytes);
        const at = i % 2 === 0 ? (i * 97) % Math.min(4096, copy.length) : copy.length - 1 - ((i * 31) % 1024);
        copy[at] = (copy[at]! + 1 + i) & 0xff;
        variants.push(copy);
      }
      for (const variant of variants) {
        await writeFile(damaged, variant);
        const probe = await fromHeader(damaged, ext);
        if (probe === undefined) continue;
        expect(Number.isFinite(probe.durationSeconds), name).toBe(true);
        for (const stream of probe.streams) {
          for (const value of [stream.width, stream.height, stream.fps, stream.sampleRate, stream.channels]) {
            if (value !== undefined) expect(Number.isFinite(value) && value > 0, name).toBe(true);
          }
        }
      }
    }
  });

  it('spares the ffprobe process of covered jobs, which convert; a truncated file fails with a stable code', async () => {
    const probed: string[] = [];
    const runner = probeCountingRunner(probed);
    const converter = withOptionsParsed(createFfmpegConverter({ runner }));
    const ws = await workspace();
    const jobs: [string, string][] = [
      ['flac stereo', 'mp3'],
      ['mp3 VBR (Xing header)', 'wav'],
      ['ogg opus', 'mp3'],
      ['m4a aac-lc', 'flac'],
      ['mp4 moov at the end', 'mkv'],
      ['mkv h264 + aac + subtitles', 'mp4'],
      ['webm vp8 + vorbis', 'mp3'],
    ];
    for (const [name, to] of jobs) {
      const { ext, args } = CASES[name]!;
      const input = join(ws.inputs, `job.${ext}`);
      make(input, args);
      const ctx = context(ws, ext, to, { inputPath: input, outputPath: join(ws.outputs, `out.${to}`) });
      await converter.convert(ctx);
      const out = probeFile(ctx.outputPath);
      expect(out.audio ?? out.video, name).toBeDefined();
      // Cut in half: converted as far as it goes, or refused with a code the caller can act on.
      const half = join(ws.inputs, `half.${ext}`);
      await writeFile(half, (await readFile(input)).subarray(0, (await stat(input)).size >> 1));
      const outcome = await converter.convert({ ...ctx, inputPath: half }).then(
        () => undefined,
        (error: unknown) => error,
      );
      if (outcome !== undefined) {
        expect(outcome, name).toBeInstanceOf(FileconvError);
        expect(['CORRUPT_INPUT', 'UNSUPPORTED_FORMAT'], name).toContain((outcome as FileconvError).code);
      }
    }
    expect(probed.filter((path) => !path.includes('half.'))).toEqual([]);
    // A file a header cannot describe goes to ffprobe as before.
    await converter.convert(context(ws, 'mp3', 'wav'));
    expect(probed).toContain(fixture('fixture.mp3'));
  });
});
