/**
 * The subtitle converter: SubRip, WebVTT, ASS and SSA into each other, each result read back by
 * ffmpeg/ffprobe (cue count and text) rather than by this code; 8-bit SubRip with a charset;
 * lying, truncated and empty inputs.
 */
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSubtitleConverter } from '../../src/converters/subtitles/index.js';
import { findTool } from '../../src/kit/command-tools.js';
import { describeWithEngine } from '../helpers/engines.js';
import {
  context,
  expectCode,
  expectNoLeftovers,
  fixture,
  withOptionsParsed,
  workspace,
} from './converter-harness.js';

const FORMATS = ['srt', 'vtt', 'ass', 'ssa'] as const;
const DEMUXER: Record<string, string> = { srt: 'srt', vtt: 'webvtt', ass: 'ass', ssa: 'ass' };
const ffmpegFound = (await findTool('ffmpeg')) !== undefined;
const converter = withOptionsParsed(createSubtitleConverter());

/** What ffmpeg itself reads from a subtitle file: one line per cue, as SubRip text. */
function cuesByFfmpeg(path: string, format: string): string[] {
  const srt = execFileSync('ffmpeg', ['-v', 'error', '-f', DEMUXER[format]!, '-i', path, '-f', 'srt', '-'], {
    encoding: 'utf8',
  });
  return srt
    .split(/\r?\n\r?\n/)
    .map((block) =>
      block
        .split(/\r?\n/)
        .slice(2)
        .join(' ')
        .replace(/<[^>]+>|\{\\[^}]*\}/g, '')
        .trim(),
    )
    .filter(Boolean);
}

function packetCount(path: string, format: string): number {
  const out = execFileSync(
    'ffprobe',
    [
      '-v',
      'error',
      '-f',
      DEMUXER[format]!,
      '-count_packets',
      '-show_entries',
      'stream=nb_read_packets',
      '-of',
      'csv=p=0',
      path,
    ],
    { encoding: 'utf8' },
  );
  return Number(out.trim());
}

describe('edges', () => {
  it('every subtitle format to every other, lossy where styling is dropped', () => {
    expect(converter.edges).toHaveLength(12);
    const lossy = converter.edges.filter((edge) => edge.lossy).map((e) => `${e.from}->${e.to}`);
    expect(lossy.sort()).toEqual(['ass->srt', 'ass->ssa', 'ass->vtt', 'ssa->srt', 'ssa->vtt']);
  });
});

describeWithEngine('ffmpeg', ffmpegFound, 'apt-get install ffmpeg', 'subtitle conversions', () => {
  const pairs = FORMATS.flatMap((from) =>
    FORMATS.filter((to) => to !== from).map((to) => [from, to] as const),
  );

  it.each(pairs)('%s -> %s keeps every cue and its text (read back by ffprobe/ffmpeg)', async (from, to) => {
    const ws = await workspace();
    const ctx = context(ws, from, to);
    await converter.convert(ctx);
    expect(packetCount(ctx.outputPath, to)).toBe(3);
    expect(cuesByFfmpeg(ctx.outputPath, to)).toEqual([
      'Hello, subtitles.',
      'Second line, in italics.',
      'Café at the end.',
    ]);
    expect(await readdir(ws.temp)).toEqual([]);
  });

  it('writes real SSA (v4.00, [V4 Styles]) and real ASS from SSA', async () => {
    const ws = await workspace();
    const toSsa = context(ws, 'srt', 'ssa');
    await converter.convert(toSsa);
    const ssa = await readFile(toSsa.outputPath, 'utf8');
    expect(ssa).toMatch(/^ScriptType: v4\.00$/m);
    expect(ssa).toContain('[V4 Styles]');
    expect(ssa).toMatch(/^Dialogue: Marked=0,/m);
    const toAss = context(ws, 'ssa', 'ass', { outputPath: join(ws.outputs, 'back.ass') });
    await converter.convert(toAss);
    const ass = await readFile(toAss.outputPath, 'utf8');
    expect(ass).toMatch(/^ScriptType: v4\.00\+$/m);
    expect(ass).toContain('[V4+ Styles]');
    expect(ass).toMatch(/^Dialogue: 0,/m);
    // The yellow bold style at the top (SSA alignment 6) is ASS's keypad 8, bold kept.
    expect(ass).toMatch(/^Style: Yellow,Arial,18,65535,65535,0,0,-1,0,0,0,100,100,0,0,1,1,0,8,10,10,10,0$/m);
    const toSrt = context(ws, 'ssa', 'srt', { outputPath: join(ws.outputs, 'top.srt') });
    await converter.convert(toSrt);
    expect(await readFile(toSrt.outputPath, 'utf8')).toContain('{\\an8}');
  });

  it('keeps styling where the target can hold it: italics and bold from SubRip to ASS and back', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'srt', 'ass');
    await converter.convert(ctx);
    const ass = await readFile(ctx.outputPath, 'utf8');
    expect(ass).toContain('{\\i1}Second line, in italics.{\\i0}');
    expect(ass).toContain('{\\b1}Café{\\b0}');
    const back = context(ws, 'ass', 'srt', {
      inputPath: ctx.outputPath,
      outputPath: join(ws.outputs, 'b.srt'),
    });
    await converter.convert(back);
    expect(await readFile(back.outputPath, 'utf8')).toContain('<i>Second line, in italics.</i>');
  });

  it('reads WebVTT with NOTE, STYLE and REGION blocks and mm:ss timings, as browsers do', async () => {
    // ffmpeg alone read none of these cues (a real file: "holds no subtitle cues").
    const ws = await workspace();
    const inputPath = join(ws.inputs, 'blocks.vtt');
    await writeFile(
      inputPath,
      [
        'WEBVTT - a lecture',
        '',
        'STYLE',
        '::cue {',
        '  color: yellow;',
        '}',
        '',
        'REGION',
        'id:left width:40%',
        '',
        'NOTE This comment',
        'spans two lines',
        '',
        '00:01.000 --> 00:04.000',
        'Hello, subtitles.',
        '',
        'NOTE between cues',
        '',
        'second',
        '00:05.000 --> 00:08.500 align:start position:10%',
        'Second line.',
        '',
      ].join('\r\n'),
    );
    for (const to of ['srt', 'ass'] as const) {
      const ctx = context(ws, 'vtt', to, { inputPath, outputPath: join(ws.outputs, `blocks.${to}`) });
      await converter.convert(ctx);
      expect(cuesByFfmpeg(ctx.outputPath, to)).toEqual(['Hello, subtitles.', 'Second line.']);
    }
    const srt = await readFile(join(ws.outputs, 'blocks.srt'), 'utf8');
    expect(srt).toContain('00:00:05,000 --> 00:00:08,500');
    expect(srt).not.toMatch(/color|NOTE|REGION/);
  });

  it('reads 8-bit SubRip: windows-1252 by default, or the charset named', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'srt', 'vtt', { inputPath: fixture('bad/cp1252.srt') });
    await converter.convert(ctx);
    expect(cuesByFfmpeg(ctx.outputPath, 'vtt')).toEqual(['Café crème']);
    const latin2 = join(ws.inputs, 'latin2.srt');
    await writeFile(latin2, Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nP\xf8\xedli\xb9\n', 'latin1'));
    const named = context(ws, 'srt', 'vtt', {
      inputPath: latin2,
      outputPath: join(ws.outputs, 'l2.vtt'),
      options: { charset: 'iso-8859-2' },
    });
    await converter.convert(named);
    expect(cuesByFfmpeg(named.outputPath, 'vtt')[0]).toBe('Příliš');
  });

  it('refuses an unknown charset as INVALID_OPTIONS', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'srt', 'vtt', { options: { charset: 'no-such-set' } })),
      'INVALID_OPTIONS',
    );
    await expectNoLeftovers(ws);
  });

  it('bad input: a lying extension, a non-text file, an empty cue list; nothing left behind', async () => {
    const ws = await workspace();
    await expectCode(
      converter.convert(context(ws, 'vtt', 'srt', { inputPath: fixture('fixture.srt') })),
      'CONTENT_MISMATCH',
    );
    await expectCode(
      converter.convert(context(ws, 'srt', 'vtt', { inputPath: fixture('fixture.png') })),
      'CONTENT_MISMATCH',
    );
    const empty = join(ws.inputs, 'empty.vtt');
    await writeFile(empty, 'WEBVTT\n\n');
    await expectCode(converter.convert(context(ws, 'vtt', 'srt', { inputPath: empty })), 'CORRUPT_INPUT');
    await expectNoLeftovers(ws);
  });

  it('a truncated SubRip converts the cues it holds', async () => {
    const ws = await workspace();
    const ctx = context(ws, 'srt', 'vtt', { inputPath: fixture('bad/truncated.srt') });
    await converter.convert(ctx);
    expect(cuesByFfmpeg(ctx.outputPath, 'vtt')).toEqual(['Hello, subtitles.', 'Second']);
  });
});
