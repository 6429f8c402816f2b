/**
 * The 'subtitles' document operation: soft subtitles muxed into MKV, MP4 and WebM (the stream
 * checked with ffprobe), subtitles burned into the picture (frames compared with ffmpeg's own
 * decoder), the filter path escaping, and bad second files.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { OperationContext } from '../src/core/ports/index.js';
import { findTool } from '../src/kit/command-tools.js';
import { subtitleFilter, subtitleOperations } from '../src/operations/subtitles/subtitle-operations.js';
import { expectCode, fixture, MAX_PIXELS, workspace } from './converters/converter-harness.js';
import { describeWithEngine } from './helpers/engines.js';

const operation = subtitleOperations()[0]!;
const ffmpegFound = (await findTool('ffmpeg')) !== undefined;

function operationContext(dir: string, inputs: string[], options: Record<string, unknown>): OperationContext {
  const parsed = operation.optionsSchema.parse(options);
  return {
    inputPaths: inputs,
    outputPath: join(dir, `out.${operation.output(parsed).format}`),
    options: parsed,
    tempDir: join(dir, 'tmp'),
    signal: new AbortController().signal,
    limits: { maxPixels: MAX_PIXELS },
  };
}

function streams(path: string): string[] {
  return execFileSync(
    'ffprobe',
    ['-v', 'error', '-show_entries', 'stream=codec_type,codec_name', '-of', 'csv=p=0', path],
    {
      encoding: 'utf8',
    },
  )
    .trim()
    .split('\n');
}

/** One frame at `seconds`, as 32x24 grey bytes decoded by ffmpeg. */
function frame(path: string, seconds: number): Buffer {
  return execFileSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-ss',
      String(seconds),
      '-i',
      path,
      '-frames:v',
      '1',
      '-vf',
      'scale=32:24',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'gray',
      '-',
    ],
    {
      maxBuffer: 1 << 20,
    },
  );
}

function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - (b[i] ?? 0));
  return sum / a.length;
}

async function prepared() {
  const ws = await workspace('fileconv-subtitle-op-');
  await mkdir(join(ws.temp, 'tmp'));
  return ws.temp;
}

describe('the operation', () => {
  it('takes a video then a subtitle file, and names its output by mode', () => {
    expect(operation).toMatchObject({ name: 'subtitles', minInputs: 2, maxInputs: 2 });
    expect(operation.accepts?.(0)).toContain('mkv');
    expect(operation.accepts?.(1)).toEqual(['srt', 'vtt', 'ass', 'ssa']);
    expect(operation.output(operation.optionsSchema.parse({}))).toEqual({ format: 'mkv' });
    expect(operation.output(operation.optionsSchema.parse({ mode: 'burn' }))).toEqual({ format: 'mp4' });
    expect(() => operation.optionsSchema.parse({ mode: 'hard' })).toThrow();
  });

  it("escapes the filter's file name for both levels of ffmpeg's syntax", () => {
    expect(subtitleFilter("/tmp/it's:a,b[1];c\\d.ass")).toBe(
      "subtitles=filename=/tmp/it\\\\\\'s\\\\:a\\,b\\[1\\]\\;c\\\\\\\\d.ass",
    );
  });
});

describeWithEngine('ffmpeg', ffmpegFound, 'apt-get install ffmpeg', 'adding subtitles to a video', () => {
  it.each([
    ['mkv', 'fixture.ass', 'ass'],
    ['mkv', 'fixture.srt', 'subrip'],
    ['mp4', 'fixture.srt', 'mov_text'],
    ['webm', 'fixture.vtt', 'webvtt'],
    ['mp4', 'fixture.ssa', 'mov_text'],
  ])('soft into %s from %s: a %s stream beside the video (ffprobe)', async (format, subtitles, codec) => {
    const dir = await prepared();
    const source = format === 'webm' ? 'fixture.webm' : 'fixture.mp4';
    const ctx = operationContext(dir, [fixture(source), fixture(subtitles)], {
      mode: 'soft',
      format,
      language: 'eng',
    });
    await operation.run(ctx);
    const found = streams(ctx.outputPath);
    expect(found).toContain(`${codec},subtitle`);
    expect(found.some((line) => line.endsWith(',video'))).toBe(true);
    const cues = execFileSync(
      'ffmpeg',
      ['-v', 'error', '-i', ctx.outputPath, '-map', '0:s:0', '-f', 'srt', '-'],
      { encoding: 'utf8' },
    );
    expect(cues).toContain('Hello, subtitles.');
    expect(await readdir(ctx.tempDir)).toEqual([]);
  });

  it('burns the subtitles into the picture: frames with a cue change, frames without stay', async () => {
    const dir = await prepared();
    // A big white cue over the whole 2 s, so a 64x48 frame shows it clearly.
    const ass = join(dir, 'big.ass');
    await writeFile(
      ass,
      [
        '[Script Info]',
        'ScriptType: v4.00+',
        'PlayResX: 64',
        'PlayResY: 48',
        '',
        '[V4+ Styles]',
        'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
        'Style: Default,DejaVu Sans,30,&H00FFFFFF,&H00FFFFFF,&H00000000,&H00000000,-1,0,0,0,100,100,0,0,3,4,0,5,0,0,0,1',
        '',
        '[Fonts]',
        'fontname: evil.ttf',
        '!!!!',
        '',
        '[Events]',
        'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
        'Dialogue: 0,0:00:01.00,0:00:02.00,Default,,0,0,0,,WWW',
      ].join('\n'),
    );
    const ctx = operationContext(dir, [fixture('fixture.mp4'), ass], { mode: 'burn' });
    await operation.run(ctx);
    expect(streams(ctx.outputPath).filter((line) => line.endsWith(',subtitle'))).toEqual([]);
    const withCue = meanDifference(frame(fixture('fixture.mp4'), 1.5), frame(ctx.outputPath, 1.5));
    const withoutCue = meanDifference(frame(fixture('fixture.mp4'), 0.3), frame(ctx.outputPath, 0.3));
    expect(withCue).toBeGreaterThan(20);
    expect(withoutCue).toBeLessThan(8);
    expect(await readdir(ctx.tempDir)).toEqual([]);
  });

  it('burns from a work folder whose path holds quotes, colons and commas', async () => {
    const dir = await prepared();
    const odd = join(dir, "it's: a, [odd]; dir");
    await mkdir(odd);
    const ctx = {
      ...operationContext(dir, [fixture('fixture.mp4'), fixture('fixture.srt')], { mode: 'burn' }),
      tempDir: odd,
    };
    await operation.run(ctx);
    expect(streams(ctx.outputPath).some((line) => line.endsWith(',video'))).toBe(true);
    expect(await readdir(odd)).toEqual([]);
  });

  it('an abort mid-burn kills ffmpeg: CANCELED, nothing left behind', async () => {
    const dir = await prepared();
    const controller = new AbortController();
    const ctx = {
      ...operationContext(dir, [fixture('fixture.mp4'), fixture('fixture.srt')], { mode: 'burn' }),
      signal: controller.signal,
    };
    const running = operation.run(ctx);
    setTimeout(() => controller.abort(new Error('stop')), 150);
    await expectCode(running, 'CANCELED');
    expect(await readdir(ctx.tempDir)).toEqual([]);
    expect((await readdir(dir)).filter((name) => name.startsWith('out'))).toEqual([]);
  });

  it('bad second file or first file: 4xx codes, nothing left behind', async () => {
    const dir = await prepared();
    const notSubtitles = operationContext(dir, [fixture('fixture.mp4'), fixture('fixture.png')], {});
    await expectCode(operation.run(notSubtitles), 'CORRUPT_INPUT');
    const notVideo = operationContext(dir, [fixture('fixture.srt'), fixture('fixture.srt')], {});
    await expectCode(operation.run(notVideo), 'CORRUPT_INPUT');
    const audioOnly = operationContext(dir, [fixture('fixture.mp3'), fixture('fixture.srt')], {});
    await expectCode(operation.run(audioOnly), 'UNSUPPORTED_FORMAT');
    expect(await readdir(join(dir, 'tmp'))).toEqual([]);
    expect((await readdir(dir)).filter((name) => name.startsWith('out'))).toEqual([]);
  });
});
