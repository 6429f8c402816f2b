/**
 * The font converter: ttf, otf, woff and woff2 into each other with fontTools (Debian's
 * python3-fonttools and python3-brotli), run as a child process per conversion.
 *
 * fontTools was chosen over npm engines by measurement (notes in the fonts helper's report): it
 * is the reference implementation behind Google's font tooling, covers all four formats and both
 * outline kinds with one program (cu2qu for CFF -> TrueType), runs outside Node's event loop and
 * is killed on abort. wawoff2 (Google's encoder as WebAssembly) covers woff2 only, blocks the
 * thread it runs on and compressed DejaVu Sans (760 KB) more slowly (22 s against fontTools'
 * 15 s on the same loaded machine). The Python program is convert-font-py.ts; what each exit
 * code means is there.
 *
 * No options: web-font generation (ttf -> woff2) is a change of wrapping, and subsetting (keeping
 * only some characters) is a different job this converter does not take on.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { throwIfAborted } from '../../core/abort.js';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import {
  COMMAND_TOOLS,
  runTool,
  stderrTail,
  toolFailed,
  toolsAvailability,
} from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { placeFile } from '../../kit/place-file.js';
import { CONVERT_FONT_PY, FONT_EXIT, FONT_MESSAGE_PREFIX } from './convert-font-py.js';
import { FONT_EDGES } from './font-edges.js';
import { FONT } from './registration.js';
import { checkWoff2Stream } from './woff2-stream.js';

export { FONT_EDGES } from './font-edges.js';
export { FONT_REGISTRATION } from './registration.js';

export interface FontConverterOptions {
  /**
   * Most bytes a font may declare it unpacks to (WOFF/WOFF2 headers, WOFF tables); past it the
   * input is INPUT_LIMIT_EXCEEDED before anything is inflated. Default 256 MiB: the largest real
   * fonts (CJK families) unpack to tens of MB.
   */
  maxFontBytes?: number;
  /** Address space the Python process may take, bytes. Default 2 GiB. */
  memoryBytes?: number;
  /** Longest one conversion may run, ms. Default 5 minutes (Brotli at WOFF2's level 11 is slow). */
  timeoutMs?: number;
}

const DEFAULT_MAX_FONT_BYTES = 256 * 1024 * 1024;
const DEFAULT_MEMORY_BYTES = 2 * 1024 * 1024 * 1024;
const PROBE = ['-I', '-c', 'import fontTools, brotli; print(fontTools.version)'];
const EXIT_CODES: Readonly<Record<number, ErrorCode>> = {
  [FONT_EXIT.corrupt]: 'CORRUPT_INPUT',
  [FONT_EXIT.limit]: 'INPUT_LIMIT_EXCEEDED',
  [FONT_EXIT.unsupported]: 'UNSUPPORTED_CONVERSION',
};

export function createFontConverter(options: FontConverterOptions = {}): Converter {
  const maxFontBytes = options.maxFontBytes ?? DEFAULT_MAX_FONT_BYTES;
  const memoryBytes = options.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  const guard = edgeGuard('font', FONT_EDGES);
  // A python3 without fontTools is as good as none; the probe's answer is kept once it is yes.
  let ready: Availability | undefined;

  return {
    ...FONT,
    async available() {
      if (ready) return ready;
      const found = await toolsAvailability(['fonttools']);
      if (!found.ok) return found;
      const probe = await runTool('fonttools', PROBE, { timeoutMs: 30_000 });
      if (probe.code !== 0) {
        return {
          ok: false,
          reason: `python3 cannot import fontTools and brotli: ${stderrTail(probe.stderr, 1)}`,
          install: COMMAND_TOOLS.fonttools.install,
        };
      }
      ready = { ok: true, version: `fontTools ${probe.stdout.trim()}` };
      return ready;
    },
    async convert(ctx: ConvertContext): Promise<ConvertResult> {
      guard(ctx.from, ctx.to);
      throwIfAborted(ctx.signal);
      ctx.onProgress(0);
      // Written beside the scratch files and moved into place whole: a failed run leaves no
      // partial font at the output path.
      const scratch = resolve(ctx.tempDir, `${randomUUID()}.${ctx.to}`);
      // Absolute: the program runs in tempDir, and a caller's path may be relative to ours.
      const input = resolve(ctx.inputPath);
      try {
        // Whatever its name says: a file declared woff2 that is not one fails in fontTools.
        await checkWoff2Stream(ctx.inputPath, maxFontBytes, ctx.signal);
        const outcome = await runTool(
          'fonttools',
          ['-I', '-c', CONVERT_FONT_PY, input, scratch, ctx.to, String(maxFontBytes), String(memoryBytes)],
          {
            signal: ctx.signal,
            timeoutMs: options.timeoutMs,
            cwd: ctx.tempDir,
            names: { [input]: `input.${ctx.from}`, [scratch]: `output.${ctx.to}` },
          },
        );
        if (outcome.code !== 0) throw fontFailure(outcome, ctx);
        await placeFile(scratch, ctx.outputPath);
      } finally {
        await rm(scratch, { force: true });
      }
      ctx.onProgress(1);
      return {};
    },
  };
}

/** The error for a failed run: the program's own reason and code when it gave one. */
function fontFailure(outcome: Awaited<ReturnType<typeof runTool>>, ctx: ConvertContext): FileconvError {
  const code = outcome.code === null ? undefined : EXIT_CODES[outcome.code];
  const reason = outcome.stderr
    .split('\n')
    .reverse()
    .find((line) => line.startsWith(FONT_MESSAGE_PREFIX))
    ?.slice(FONT_MESSAGE_PREFIX.length)
    .trim();
  if (code === undefined || reason === undefined) {
    return toolFailed('fonttools', outcome, `converting ${ctx.from} to ${ctx.to}`);
  }
  return new FileconvError(code, `Cannot convert this ${ctx.from} font to ${ctx.to}: ${reason}`, {
    details: { tool: 'fonttools', exitCode: outcome.code },
  });
}
