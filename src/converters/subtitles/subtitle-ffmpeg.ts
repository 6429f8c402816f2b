/**
 * Runs ffmpeg for subtitle work: local files only (protocol whitelist 'file', paths as file:
 * URLs), the demuxer forced with -f from what the caller checked the file to be (content never
 * picks a playlist or concat reader), no shell, killed on abort. An exit that ffmpeg explains
 * with words meaning "this input is bad" is CORRUPT_INPUT; anything else is CONVERSION_FAILED.
 */
import { rm } from 'node:fs/promises';
import { FileconvError } from '../../core/errors.js';
import { redact, runTool, stderrTail } from '../../kit/command-tools.js';

/** ffmpeg's demuxer for each subtitle format (SSA is read by the ASS demuxer). */
export const SUBTITLE_DEMUXER = { srt: 'srt', vtt: 'webvtt', ass: 'ass', ssa: 'ass' } as const;

/** stderr words that mean the input, not ffmpeg, is at fault. */
const BAD_INPUT =
  /Invalid data found|could not find codec parameters|Invalid UTF-8|Error while decoding|does not contain any stream|Stream map .* matches no streams|Error opening input|Invalid argument|moov atom not found|End of file/i;

export interface FfmpegCall {
  /** Arguments after the fixed safety flags; paths in them are given as file: URLs already. */
  args: readonly string[];
  /** Paths to show by name in messages (path -> name). */
  names: Record<string, string>;
  /** Removed when the run fails. */
  outputPath: string;
  signal: AbortSignal;
  /** What failed, for the message ('The subtitle conversion'). */
  what: string;
  cwd?: string;
}

/** Runs ffmpeg with `args`; resolves when it exited 0. */
export async function runFfmpeg(call: FfmpegCall): Promise<void> {
  const outcome = await runTool(
    'ffmpeg',
    [
      '-nostdin',
      '-hide_banner',
      '-nostats',
      '-y',
      '-v',
      'error',
      '-protocol_whitelist',
      'file',
      ...call.args,
    ],
    { signal: call.signal, names: call.names, ...(call.cwd === undefined ? {} : { cwd: call.cwd }) },
  ).catch(async (error: unknown) => {
    await rm(call.outputPath, { force: true });
    throw error;
  });
  if (outcome.code === 0) return;
  await rm(call.outputPath, { force: true });
  const tail = stderrTail(redact(outcome.stderr, call.names), 4);
  const reason =
    tail
      .split(' | ')
      .filter((line) => line !== '' && !/^Conversion failed!?$/.test(line))
      .at(-1) ?? `exit ${outcome.code}`;
  throw new FileconvError(
    BAD_INPUT.test(outcome.stderr) ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED',
    `${call.what} failed: ${reason}`,
    { details: { exitCode: outcome.code, log: tail } },
  );
}
