/**
 * Encoders that @ffmpeg/core 0.12.10 lists (`ffmpeg -encoders`) but that the WebAssembly engine
 * does not run, measured on 64x48 and 320x240 clips and known upstream:
 * - libx265 never returns, not even for a single frame with `-preset ultrafast` or
 *   `-x265-params pools=none` (ffmpegwasm/ffmpeg.wasm#898), with any stack size: it would spin a
 *   core until the job's timeout. This is the one that must be refused before it starts.
 * - libvpx-vp9 traps with "RuntimeError: memory access out of bounds" within the first frames
 *   with the core's own 64 KB stack (ffmpegwasm/ffmpeg.wasm#679), which it overflows. With the
 *   8 MB stack wasm-core.ts now gives every instance it encodes (10 s of 640x360 in realtime mode:
 *   4.0 s), but it stays refused here, and unoffered by the converter, until it has been tested as
 *   widely as VP8: take it out of this set to offer it.
 * The codec names `vp9` and `hevc` select these encoders too. Note that ffmpeg also picks VP9 by
 * default for a .webm output without `-c:v`: the converter always names its encoders.
 *
 * Decoding is not affected: VP9 and HEVC inputs convert fine; AV1 has no decoder in this build.
 */
import { FileconvError } from '../../core/errors.js';

export const WASM_UNUSABLE_ENCODERS: ReadonlySet<string> = new Set(['libvpx-vp9', 'vp9', 'libx265', 'hevc']);

/** `-c:v`, `-c:a:0`, `-codec`, `-vcodec`, ...: the options whose value names an encoder. */
const CODEC_OPTION = /^-(?:c|codec|vcodec|acodec)(?::.*)?$/;

/** UNSUPPORTED_CONVERSION when `args` ask for an encoder the WebAssembly engine does not run. */
export function refuseUnusableEncoders(args: readonly string[]): void {
  for (let i = 0; i < args.length - 1; i++) {
    const encoder = args[i + 1]!;
    if (CODEC_OPTION.test(args[i]!) && WASM_UNUSABLE_ENCODERS.has(encoder)) {
      throw new FileconvError(
        'UNSUPPORTED_CONVERSION',
        `The WebAssembly ffmpeg engine does not run the ${encoder} encoder; the native ffmpeg has it`,
        { details: { encoder, engine: 'ffmpeg.wasm' } },
      );
    }
  }
}
