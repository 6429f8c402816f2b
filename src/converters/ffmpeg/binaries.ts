/**
 * Finds the native ffmpeg and ffprobe binaries: an explicit path, else the lookup every ffmpeg
 * user shares (kit/command-tools.ts: FFMPEG_PATH / FFPROBE_PATH, else PATH, else the usual
 * directories), so the media converter never disagrees with the image and subtitle converters
 * about whether ffmpeg is here. ffprobe is looked for beside ffmpeg first, so a custom build is
 * never paired with a different system ffprobe. Nothing is run to find them.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findTool, whyNotFound } from '../../kit/command-tools.js';
import { isExecutable } from '../../kit/executables.js';

export interface BinaryPaths {
  ffmpeg: string;
  ffprobe: string;
}

export interface BinaryOptions {
  ffmpegPath?: string | undefined;
  ffprobePath?: string | undefined;
}

/**
 * The binaries to run, or a description of what is missing. An explicitly configured path that
 * is not executable is an error, never silently replaced by another binary.
 */
export async function locateBinaries(options: BinaryOptions): Promise<BinaryPaths | { missing: string }> {
  const ffmpeg = options.ffmpegPath ? await explicit(options.ffmpegPath) : await findTool('ffmpeg');
  if (!ffmpeg) {
    return {
      missing: options.ffmpegPath
        ? `ffmpeg is not executable at ${options.ffmpegPath}`
        : whyNotFound('ffmpeg'),
    };
  }
  if (options.ffprobePath) {
    const ffprobe = await explicit(options.ffprobePath);
    return ffprobe ? { ffmpeg, ffprobe } : { missing: `ffprobe is not executable at ${options.ffprobePath}` };
  }
  if (process.env.FFPROBE_PATH) {
    const ffprobe = await findTool('ffprobe');
    return ffprobe ? { ffmpeg, ffprobe } : { missing: whyNotFound('ffprobe') };
  }
  const suffix = process.platform === 'win32' ? '.exe' : '';
  const beside = join(dirname(ffmpeg), `ffprobe${suffix}`);
  const ffprobe = (await isExecutable(beside)) ? beside : await findTool('ffprobe');
  return ffprobe ? { ffmpeg, ffprobe } : { missing: `ffprobe is not beside ${ffmpeg} nor on PATH` };
}

async function explicit(path: string): Promise<string | undefined> {
  return (await isExecutable(path)) ? path : undefined;
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
