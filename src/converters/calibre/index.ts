/**
 * The e-book converter: epub, mobi, azw3 and fb2 into each other and into pdf, docx, txt, md and
 * htmlzip, with calibre's ebook-convert (Debian: calibre, GPL-3.0; run as a separate program, so
 * its licence does not reach fileconv's code, but whoever ships it ships a GPL program).
 *
 * One ebook-convert per conversion: it is Python and Qt, about 1-1.5 s of CPU to start and
 * convert a small book. A warm calibre (calibre-server, or one Python process converting book
 * after book) would save part of that, but calibre keeps global state between conversions and
 * creates its Qt application once per process; a fresh process per book is what calibre itself
 * does for its GUI's jobs, and nothing of one upload can reach the next.
 *
 * Every run is shut in: its HOME, config, cache, runtime and temp dirs are in the conversion's
 * scratch dir (never the user's home), Qt draws offscreen, and the input is checked first
 * (ebook/ebook-input.ts: zip-bomb rules for EPUB, truncation for MOBI and FictionBook). For PDF
 * calibre renders the book in Qt WebEngine (Chromium): calibre blocks every request that is not
 * for a file inside the book and forbids file: URLs; the proxy set here (a closed port) is the
 * backstop behind that, as in the Chromium converter. The book's own scripts may run there, on
 * the book's own pages only. FictionBook is parsed without resolving entities (checked).
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { abortError, throwIfAborted } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import type { FormatName } from '../../core/formats/types.js';
import { parseOptions } from '../../core/options.js';
import type { Availability, ConvertContext, Converter, ConvertResult } from '../../core/ports/index.js';
import {
  COMMAND_TOOLS,
  runTool,
  type ToolOutcome,
  toolFailed,
  toolsAvailability,
} from '../../kit/command-tools.js';
import { edgeGuard } from '../../kit/converter-kit.js';
import { linkInto, placeFile } from '../../kit/place-file.js';
import { type ZipLimits, zipLimitsSchema } from '../../kit/zip-safety.js';
import { CALIBRE_EDGES, CALIBRE_TARGETS } from './calibre-edges.js';
import type { CalibrePdfOptions } from './calibre-options.js';
import { checkEbookInput } from './ebook-input.js';
import { CALIBRE } from './registration.js';

export { CALIBRE_REGISTRATION } from './registration.js';

export interface CalibreConverterOptions {
  /** Longest one ebook-convert run may take (CONVERSION_TIMEOUT). Default 300000 (5 minutes). */
  timeoutMs?: number;
  /** Decompression limits for EPUB inputs. Default DEFAULT_ZIP_LIMITS (office/zip-safety.ts). */
  zipLimits?: Partial<ZipLimits>;
}

const factoryOptionsSchema = z.strictObject({
  timeoutMs: z.int().min(1).max(86_400_000).optional(),
  zipLimits: zipLimitsSchema.optional(),
});

export const CALIBRE_DEFAULTS = { timeoutMs: 300_000, paper: 'A4' } as const;

const PAPER_SIZES = { A4: 'a4', Letter: 'letter', Legal: 'legal', A5: 'a5', A3: 'a3' } as const;

/**
 * Chromium switches for calibre's Qt WebEngine (PDF output): its sandbox refuses to start as
 * root, which containers often are (the Chromium converter runs the same way); every request
 * goes to a proxy on a closed port, loopback included, in case one ever got past calibre's filter.
 */
const WEBENGINE_FLAGS =
  '--no-sandbox --disable-gpu --proxy-server=127.0.0.1:9 --proxy-bypass-list=<-loopback>';

/** A private home for one run: calibre writes its settings, caches and temp files there. */
async function isolatedEnvironment(scratch: string): Promise<Record<string, string>> {
  const dirs = { home: join(scratch, 'home'), tmp: join(scratch, 'tmp'), runtime: join(scratch, 'runtime') };
  await mkdir(dirs.home);
  await mkdir(dirs.tmp);
  await mkdir(dirs.runtime, { mode: 0o700 });
  return {
    HOME: dirs.home,
    CALIBRE_CONFIG_DIRECTORY: join(dirs.home, 'config'),
    CALIBRE_TEMP_DIR: dirs.tmp,
    TMPDIR: dirs.tmp,
    XDG_CONFIG_HOME: join(dirs.home, '.config'),
    XDG_CACHE_HOME: join(dirs.home, '.cache'),
    XDG_DATA_HOME: join(dirs.home, '.local'),
    XDG_RUNTIME_DIR: dirs.runtime,
    QT_QPA_PLATFORM: 'offscreen',
    QTWEBENGINE_CHROMIUM_FLAGS: WEBENGINE_FLAGS,
    QTWEBENGINE_DISABLE_SANDBOX: '1',
    // Nothing calibre's Python does while converting needs the network; a proxy nowhere makes sure.
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    no_proxy: '',
  };
}

/**
 * The error for a failed run. ebook-convert reports "34% Running transforms on e-book" once it
 * has read the book: a failure before that is the input's (CORRUPT_INPUT; a DRM-locked book is
 * PASSWORD_PROTECTED), a failure after it is ours (CONVERSION_FAILED).
 */
function failure(outcome: ToolOutcome, from: FormatName, to: FormatName): FileconvError {
  if (/DRMError|is locked with DRM|DRM-protected/i.test(outcome.stderr)) {
    return new FileconvError(
      'PASSWORD_PROTECTED',
      `The ${from} book is locked with DRM; calibre cannot read it.`,
    );
  }
  const inputRead = /Running transforms on e-book/.test(outcome.stdout);
  const doing = `converting ${from} to ${to}`;
  return toolFailed(
    'ebook-convert',
    lastLine(outcome),
    doing,
    inputRead ? 'CONVERSION_FAILED' : 'CORRUPT_INPUT',
  );
}

/** A Python traceback says what went wrong on its last line; the frames above it are noise in a message. */
function lastLine(outcome: ToolOutcome): ToolOutcome {
  const lines = outcome.stderr.split('\n').filter((line) => line.trim() !== '');
  const raised = lines.findLastIndex((line) => /^[\w.]+(Error|Exception)\b/.test(line));
  return raised === -1 ? outcome : { ...outcome, stderr: lines.slice(raised).join('\n') };
}

/** Creates the calibre converter. Options are checked here; a bad one throws INVALID_OPTIONS. */
export function createCalibreConverter(options: CalibreConverterOptions = {}): Converter<CalibrePdfOptions> {
  const given = parseOptions(factoryOptionsSchema, options, 'createCalibreConverter');
  const timeoutMs = given.timeoutMs ?? CALIBRE_DEFAULTS.timeoutMs;
  const zipLimits = given.zipLimits ?? {};
  const guard = edgeGuard('calibre', CALIBRE_EDGES);

  async function run(ctx: ConvertContext<CalibrePdfOptions>, scratch: string): Promise<void> {
    const target = CALIBRE_TARGETS[ctx.to];
    if (!target) throw new FileconvError('UNSUPPORTED_CONVERSION', `calibre cannot write '${ctx.to}'`);
    await checkEbookInput(ctx.inputPath, ctx.from, zipLimits, ctx.signal);
    ctx.onProgress(0.05);
    // calibre picks its input and output plugins by the file names' extensions.
    const input = join(scratch, `input.${ctx.from}`);
    await linkInto(ctx.inputPath, input);
    const output = join(scratch, `result.${target.extension}`);
    const args = [input, output, ...target.args];
    if (ctx.to === 'pdf') {
      const paper = ctx.options.paper ?? CALIBRE_DEFAULTS.paper;
      args.push('--paper-size', PAPER_SIZES[paper]);
    }
    const env = await isolatedEnvironment(scratch);
    const names = { [input]: `input.${ctx.from}`, [output]: `result.${ctx.to}`, [scratch]: 'scratch' };
    const outcome = await runTool('ebook-convert', args, { signal: ctx.signal, timeoutMs, env, names });
    throwIfAborted(ctx.signal);
    if (outcome.code !== 0) throw failure(outcome, ctx.from, ctx.to);
    const written = await stat(output).catch(() => undefined);
    if (!written || written.size === 0) {
      throw new FileconvError('CONVERSION_FAILED', `calibre reported success but wrote no ${ctx.to}`);
    }
    ctx.onProgress(0.95);
    await placeFile(output, ctx.outputPath);
  }

  return {
    ...CALIBRE,
    available: (): Promise<Availability> => toolsAvailability(['ebook-convert']),
    async convert(ctx): Promise<ConvertResult> {
      throwIfAborted(ctx.signal);
      guard(ctx.from, ctx.to);
      ctx.onProgress(0);
      const scratch = await mkdtemp(join(ctx.tempDir, 'calibre-'));
      try {
        await run(ctx, scratch);
        ctx.onProgress(1);
        return {};
      } catch (error) {
        if (ctx.signal.aborted) throw abortError(ctx.signal);
        throw error;
      } finally {
        await rm(scratch, { recursive: true, force: true, maxRetries: 3 });
      }
    },
  };
}

export const CALIBRE_INSTALL = COMMAND_TOOLS['ebook-convert'].install;
