/**
 * Finds the native ffmpeg and ffprobe binaries: an explicit path, else FFMPEG_PATH / FFPROBE_PATH,
 * else the first executable on PATH; ffprobe is looked for beside ffmpeg first, so a custom build
 * is never paired with a different system ffprobe. Nothing is run to find them.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findOnPath, isExecutable } from '../../kit/executables.js';

export interface BinaryPaths {
  ffmpeg: string;
  ffprobe: string;
}

export interface BinaryOptions {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}

async function explicit(path: string | undefined): Promise<string | undefined> {
  if (!path) return undefined;
  return (await isExecutable(path)) ? path : undefined;
}

/**
 * The binaries to run, or a description of what is missing. An explicitly configured path that
 * is not executable is an error, never silently replaced by another binary.
 */
export async function locateBinaries(options: BinaryOptions): Promise<BinaryPaths | { missing: string }> {
  const ffmpegWanted = options.ffmpegPath ?? process.env.FFMPEG_PATH;
  const ffmpeg = ffmpegWanted ? await explicit(ffmpegWanted) : await findOnPath('ffmpeg');
  if (!ffmpeg) {
    return {
      missing: ffmpegWanted ? `ffmpeg is not executable at ${ffmpegWanted}` : 'ffmpeg is not on PATH',
    };
  }
  const ffprobeWanted = options.ffprobePath ?? process.env.FFPROBE_PATH;
  if (ffprobeWanted) {
    const ffprobe = await explicit(ffprobeWanted);
    return ffprobe ? { ffmpeg, ffprobe } : { missing: `ffprobe is not executable at ${ffprobeWanted}` };
  }
  const suffix = process.platform === 'win32' ? '.exe' : '';
  const beside = join(dirname(ffmpeg), `ffprobe${suffix}`);
  const ffprobe = (await isExecutable(beside)) ? beside : await findOnPath('ffprobe');
  return ffprobe ? { ffmpeg, ffprobe } : { missing: `ffprobe is not beside ${ffmpeg} nor on PATH` };
}

/** "5.1.9-0+deb12u1" from `ffmpeg -version`; undefined when it does not run. */
export async function ffmpegVersion(ffmpeg: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)(ffmpeg, ['-hide_banner', '-version'], {
      timeout: 10_000,
      maxBuffer: 1024 * 1024,
    });
    return /version\s+(\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}
