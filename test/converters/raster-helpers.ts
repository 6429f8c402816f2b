/**
 * What the raster converter tests share: the engines they need, and independent ways to look at
 * an image (ImageMagick's identify and compare, ffmpeg's decoders for what ImageMagick wrote).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fixture } from './converter-harness.js';

/** The picture every raster fixture holds (scripts/make-raster-fixtures.sh). */
export const ROSE = fixture('raster/rose.png');

function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** ImageMagick's own binaries, never a stand-in earlier on PATH. */
const IM = (tool: string) => (runs(`/usr/bin/${tool}`, ['-version']) ? `/usr/bin/${tool}` : tool);
export const IDENTIFY = IM('identify');
export const COMPARE = IM('compare');
export const CONVERT = IM('convert');

export const RASTER_ENGINES_AVAILABLE =
  runs(IDENTIFY, ['-version']) &&
  runs('ffmpeg', ['-version']) &&
  runs('cjxl', ['--version']) &&
  runs('djxl', ['--version']) &&
  spawnSync('dcraw_emu', [], { stdio: 'ignore' }).error === undefined &&
  spawnSync('heif-enc', ['--help'], { stdio: 'ignore' }).error === undefined;
export const RASTER_INSTALL = 'apt-get install imagemagick ffmpeg libjxl-tools libraw-bin libheif-examples';

export interface Identified {
  format: string;
  width: number;
  height: number;
  depth: number;
  colorspace: string;
}

/** identify's view of the first image in `path` (read as `coder` when given). */
export function identify(path: string, coder?: string): Identified {
  const source = `${coder ? `${coder}:` : ''}${path}[0]`;
  const out = execFileSync(IDENTIFY, ['-format', '%m %w %h %z %[colorspace]', source], { encoding: 'utf8' });
  const [format = '', width = '0', height = '0', depth = '0', colorspace = ''] = out.trim().split(' ');
  return { format, width: Number(width), height: Number(height), depth: Number(depth), colorspace };
}

/** Normalised RMSE (0 = identical, 1 = opposite) between two images ImageMagick reads. */
export function rmse(a: string, b: string): number {
  // compare exits 1 when the images differ; the metric is on stderr either way.
  const result = spawnSync(COMPARE, ['-metric', 'RMSE', a, b, 'null:'], { encoding: 'utf8' });
  const match = /\(([\d.e-]+)\)/.exec(result.stderr);
  if (!match) throw new Error(`compare failed: ${result.stderr}`);
  return Number(match[1]);
}

/** Decodes `path` to a PNG with ffmpeg (another decoder than the one that may have written it). */
export function ffmpegDecode(path: string, dir: string, inputOptions: readonly string[] = []): string {
  const out = join(dir, `ffmpeg-${Math.random().toString(36).slice(2)}.png`);
  execFileSync(
    'ffmpeg',
    [
      ...['-nostdin', '-hide_banner', '-loglevel', 'error'],
      ...inputOptions,
      ...['-i', path, '-frames:v', '1', '-update', '1', out],
    ],
    { stdio: 'ignore' },
  );
  return out;
}

/** The rose in grey, as ImageMagick makes it: what a PGM of it should look like. */
export function greyRose(dir: string): string {
  const out = join(dir, 'rose-grey.png');
  execFileSync(CONVERT, [ROSE, '-colorspace', 'Gray', out]);
  return out;
}
