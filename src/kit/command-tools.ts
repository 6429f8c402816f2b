/**
 * The command-line programs converters and operations run, found and run one way: qpdf and
 * Ghostscript for PDF work, and whatever Debian package an engine rests on (each converter adds
 * its tools to COMMAND_TOOLS). A tool is found at its environment override (e.g. QPDF_PATH) or on
 * PATH, and run without a shell, stdin closed, killed on abort or timeout and reaped before the
 * call settles. A missing tool is ENGINE_UNAVAILABLE with the line that installs it (and its
 * licence: an AGPL or GPL engine matters to whoever ships it); a failing one keeps the end of its
 * stderr for the message, with the machine's paths replaced by the names the caller knows.
 */
import { basename } from 'node:path';
import { abortError } from '../core/abort.js';
import { type ErrorCode, FileconvError } from '../core/errors.js';
import type { Availability } from '../core/ports/index.js';
import { type ChildOutcome, runChild } from './child-process.js';
import { ChildCpuMeter } from './cpu-time.js';
import { findOnPath, isExecutable } from './executables.js';

export interface CommandToolInfo {
  /** What people call it in messages ('Ghostscript'). */
  label: string;
  /** Executable names to look for on PATH, in order ('magick' before 'convert'). */
  executables: readonly string[];
  /** The environment variable naming its path. */
  env: string;
  /** Its Debian package and licence, and the macOS line: shown by errors and `fileconv doctor`. */
  install: string;
  /** Arguments that make it print its version on stdout or stderr (first line kept). */
  versionArgs?: readonly string[];
  /**
   * Absolute paths tried before PATH: for an interpreter whose modules come from a Debian
   * package (python3-fonttools installs into /usr/bin/python3's library, which a pyenv or venv
   * python3 earlier on PATH does not see).
   */
  preferredPaths?: readonly string[];
}

export const COMMAND_TOOLS = {
  qpdf: {
    label: 'qpdf',
    executables: ['qpdf'],
    env: 'QPDF_PATH',
    install: 'apt-get install qpdf (Apache-2.0; brew install qpdf), or set QPDF_PATH',
    versionArgs: ['--version'],
  },
  gs: {
    label: 'Ghostscript',
    executables: ['gs'],
    env: 'GHOSTSCRIPT_PATH',
    install: 'apt-get install ghostscript (AGPL-3.0; brew install ghostscript), or set GHOSTSCRIPT_PATH',
    versionArgs: ['--version'],
  },
  magick: {
    label: 'ImageMagick',
    executables: ['magick', 'convert'],
    env: 'IMAGEMAGICK_PATH',
    install:
      'apt-get install imagemagick (ImageMagick License; brew install imagemagick), or set IMAGEMAGICK_PATH',
    versionArgs: ['-version'],
  },
  cjxl: {
    label: 'libjxl (cjxl)',
    executables: ['cjxl'],
    env: 'CJXL_PATH',
    install: 'apt-get install libjxl-tools (BSD-3-Clause; brew install jpeg-xl), or set CJXL_PATH',
    versionArgs: ['--version'],
  },
  djxl: {
    label: 'libjxl (djxl)',
    executables: ['djxl'],
    env: 'DJXL_PATH',
    install: 'apt-get install libjxl-tools (BSD-3-Clause; brew install jpeg-xl), or set DJXL_PATH',
    versionArgs: ['--version'],
  },
  // Every ffmpeg user: the raster image, subtitle and media converters and the subtitles
  // operation (the media converter through ffmpeg/binaries.ts, which falls back to WebAssembly).
  ffmpeg: {
    label: 'ffmpeg',
    executables: ['ffmpeg'],
    env: 'FFMPEG_PATH',
    install: 'apt-get install ffmpeg (GPL-2.0+ as Debian builds it; brew install ffmpeg), or set FFMPEG_PATH',
    versionArgs: ['-version'],
  },
  // ffmpeg's prober, from the same Debian package; the media converter looks beside ffmpeg first.
  ffprobe: {
    label: 'ffprobe',
    executables: ['ffprobe'],
    env: 'FFPROBE_PATH',
    install:
      'apt-get install ffmpeg (GPL-2.0+ as Debian builds it; brew install ffmpeg), or set FFPROBE_PATH',
    versionArgs: ['-version'],
  },
  dcraw_emu: {
    label: 'LibRaw (dcraw_emu)',
    executables: ['dcraw_emu'],
    env: 'DCRAW_EMU_PATH',
    install: 'apt-get install libraw-bin (LGPL-2.1 or CDDL-1.0; brew install libraw), or set DCRAW_EMU_PATH',
  },
  'heif-enc': {
    // libheif's encoder; Debian's libheif1 encodes HEVC with x265, which is GPL: run as a program, never linked.
    label: 'libheif (heif-enc)',
    executables: ['heif-enc'],
    env: 'HEIF_ENC_PATH',
    install:
      'apt-get install libheif-examples (libheif LGPL-3.0, its HEVC encoder x265 GPL-2.0+; brew install libheif), or set HEIF_ENC_PATH',
    // It has no --version: its help's first line is ' heif-enc  libheif version: 1.15.1'.
    versionArgs: ['--help'],
  },
  bsdtar: {
    label: 'libarchive (bsdtar)',
    executables: ['bsdtar'],
    env: 'BSDTAR_PATH',
    install: 'apt-get install libarchive-tools (BSD-2-Clause; brew install libarchive), or set BSDTAR_PATH',
    versionArgs: ['--version'],
  },
  bsdcat: {
    // libarchive's decompressor alone (raw format: no archive parsing): shows what a compressed
    // archive holds before bsdtar, which reads every format libarchive knows, is let near it.
    label: 'libarchive (bsdcat)',
    executables: ['bsdcat'],
    env: 'BSDCAT_PATH',
    install: 'apt-get install libarchive-tools (BSD-2-Clause; brew install libarchive), or set BSDCAT_PATH',
    versionArgs: ['--version'],
  },
  tesseract: {
    label: 'Tesseract OCR',
    executables: ['tesseract'],
    env: 'TESSERACT_PATH',
    install:
      'apt-get install tesseract-ocr tesseract-ocr-eng, and tesseract-ocr-<lang> per language (Apache-2.0; brew install tesseract), or set TESSERACT_PATH',
    versionArgs: ['--version'],
  },
  'ebook-convert': {
    label: "calibre's ebook-convert",
    executables: ['ebook-convert'],
    env: 'EBOOK_CONVERT_PATH',
    install: 'apt-get install calibre (GPL-3.0; brew install --cask calibre), or set EBOOK_CONVERT_PATH',
    versionArgs: ['--version'],
  },
  'rsvg-convert': {
    label: 'librsvg (rsvg-convert)',
    executables: ['rsvg-convert'],
    env: 'RSVG_CONVERT_PATH',
    install: 'apt-get install librsvg2-bin (LGPL-2.1; brew install librsvg), or set RSVG_CONVERT_PATH',
    versionArgs: ['--version'],
  },
  pdftocairo: {
    label: 'Poppler (pdftocairo)',
    executables: ['pdftocairo'],
    env: 'PDFTOCAIRO_PATH',
    install: 'apt-get install poppler-utils (GPL-2.0; brew install poppler), or set PDFTOCAIRO_PATH',
    versionArgs: ['-v'],
  },
  pdfinfo: {
    label: 'Poppler (pdfinfo)',
    executables: ['pdfinfo'],
    env: 'PDFINFO_PATH',
    install: 'apt-get install poppler-utils (GPL-2.0; brew install poppler), or set PDFINFO_PATH',
    versionArgs: ['-v'],
  },
  pdftotext: {
    label: 'Poppler (pdftotext)',
    executables: ['pdftotext'],
    env: 'PDFTOTEXT_PATH',
    install: 'apt-get install poppler-utils (GPL-2.0; brew install poppler), or set PDFTOTEXT_PATH',
    versionArgs: ['-v'],
  },
  pdftoppm: {
    label: 'Poppler (pdftoppm)',
    executables: ['pdftoppm'],
    env: 'PDFTOPPM_PATH',
    install: 'apt-get install poppler-utils (GPL-2.0; brew install poppler), or set PDFTOPPM_PATH',
    versionArgs: ['-v'],
  },
  // python3-munkres, named beside fontTools, satisfies its 'scipy | munkres' dependency, so apt
  // need not pull SciPy and NumPy (89 MB) for an assignment solver fontTools' converters never use.
  fonttools: {
    label: 'fontTools (python3)',
    executables: ['python3'],
    env: 'FONTTOOLS_PYTHON',
    install:
      'apt-get install --no-install-recommends python3-munkres python3-fonttools python3-brotli (MIT; pip install fonttools brotli), or set FONTTOOLS_PYTHON to a python3 that has them',
    preferredPaths: ['/usr/bin/python3'],
  },
} as const satisfies Record<string, CommandToolInfo>;

export type CommandTool = keyof typeof COMMAND_TOOLS;

/** Default limit of one tool run: a 256 MiB scan recompresses in well under a minute. */
export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60_000;

export interface ToolRunOptions {
  /** Stops the tool (SIGKILL) and fails the call with CANCELED. */
  signal?: AbortSignal | undefined;
  /** Stops the tool after this many milliseconds (CONVERSION_TIMEOUT). Default 5 minutes. */
  timeoutMs?: number | undefined;
}

const SEARCH_DIRS = ['/usr/bin', '/usr/local/bin', '/opt/homebrew/bin'];

/** The tool's executable, or undefined: its environment override, else the first name on PATH. */
export async function findTool(tool: CommandTool): Promise<string | undefined> {
  const info: CommandToolInfo = COMMAND_TOOLS[tool];
  const configured = process.env[info.env];
  if (configured) return (await isExecutable(configured)) ? configured : undefined;
  for (const path of info.preferredPaths ?? []) if (await isExecutable(path)) return path;
  for (const name of info.executables) {
    const found = await findOnPath(name, SEARCH_DIRS);
    if (found) return found;
  }
  return undefined;
}

/** The tool's executable; ENGINE_UNAVAILABLE naming the install line when it is missing. */
export async function locateTool(tool: CommandTool, purpose = 'This conversion'): Promise<string> {
  const found = await findTool(tool);
  if (found) return found;
  const info: CommandToolInfo = COMMAND_TOOLS[tool];
  throw new FileconvError('ENGINE_UNAVAILABLE', `${purpose} needs ${info.label}: ${whyNotFound(tool)}.`, {
    details: { tool, install: info.install },
  });
}

/** Why findTool found nothing: its environment override is not executable, or no such program. */
export function whyNotFound(tool: CommandTool): string {
  const info: CommandToolInfo = COMMAND_TOOLS[tool];
  const configured = process.env[info.env];
  return configured
    ? `${info.env}=${configured} is not executable`
    : `no ${info.executables.join(' or ')} on PATH`;
}

/**
 * available()'s answer for a converter resting on `tools`: ok with the first tool's version, or
 * what is missing with the install lines. Cheap enough for `fileconv doctor` (one short run).
 */
export async function toolsAvailability(tools: readonly CommandTool[]): Promise<Availability> {
  const missing: CommandTool[] = [];
  for (const tool of tools) if (!(await findTool(tool))) missing.push(tool);
  if (missing.length > 0) {
    return {
      ok: false,
      reason: `not installed: ${missing.map((tool) => COMMAND_TOOLS[tool].label).join(', ')}`,
      install: missing.map((tool) => COMMAND_TOOLS[tool].install).join('; '),
    };
  }
  const version = tools[0] === undefined ? undefined : await toolVersion(tools[0]);
  return version === undefined ? { ok: true } : { ok: true, version };
}

async function toolVersion(tool: CommandTool): Promise<string | undefined> {
  const info: CommandToolInfo = COMMAND_TOOLS[tool];
  if (!info.versionArgs) return undefined;
  try {
    const outcome = await runTool(tool, info.versionArgs, { timeoutMs: 10_000, keepStdout: 4096 });
    const first = `${outcome.stdout}\n${outcome.stderr}`.split('\n').find((text) => text.trim() !== '');
    if (first === undefined) return undefined;
    // 'Version: ImageMagick 6.9.11-60 Q16 ... https://...' -> 'ImageMagick 6.9.11-60 Q16 ...'.
    const line = first
      .replace(/^\s*version:?\s*/i, '')
      .replace(/\s+(?:Copyright|https?:\/\/).*$/i, '')
      .trim();
    // A tool that names itself ('ffmpeg version 5.1', 'bsdtar 3.6.2') is not named twice.
    const named = info.executables.some((name) => line.toLowerCase().includes(name.toLowerCase()));
    return (named ? line : `${info.label} ${line}`).slice(0, 120);
  } catch {
    return undefined;
  }
}

/** What a finished run left: the exit code and the end of stderr, paths replaced. */
export interface ToolOutcome {
  code: number | null;
  stderr: string;
  stdout: string;
}

/**
 * Runs `tool` with `args`; resolves with its exit code whatever it is (qpdf's 3 means "done, with
 * warnings"). `names` maps paths in its output to what the caller should see instead.
 */
export async function runTool(
  tool: CommandTool,
  args: readonly string[],
  options: ToolRunOptions & {
    names?: Record<string, string>;
    keepStdout?: number;
    cwd?: string;
    /** Variables added to (or replacing) this process's environment for the tool (calibre's HOME). */
    env?: NodeJS.ProcessEnv;
  },
): Promise<ToolOutcome> {
  const command = await locateTool(tool);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const meter = new ChildCpuMeter();
  let metered: Promise<number | undefined> = Promise.resolve(undefined);
  const outcome: ChildOutcome = await runChild(command, args, {
    signal,
    keepStdout: options.keepStdout ?? 64 * 1024,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: { ...process.env, ...options.env } }),
    onSpawn: (pid) => meter.watch(pid),
    onExit: () => {
      metered = meter.finish();
    },
  });
  meter.stop();
  if (outcome.aborted) throw stoppedError(signal, await metered);
  if (outcome.spawnError) {
    throw new FileconvError(
      'ENGINE_UNAVAILABLE',
      `${COMMAND_TOOLS[tool].label} could not be started: ${outcome.spawnError.message}`,
      { cause: outcome.spawnError, details: { tool, install: COMMAND_TOOLS[tool].install } },
    );
  }
  return {
    code: outcome.code,
    stderr: redact(outcome.stderr, options.names ?? {}),
    stdout: outcome.stdout,
  };
}

/**
 * The error of a tool killed by its deadline or an abort, with the CPU it had used
 * (`details.cpuMs`, where measured): a program that spins on its input (an EPS `{ 1 pop } loop`)
 * fails its job on that input, and the job records what it burnt (engine/conversion.ts).
 */
function stoppedError(signal: AbortSignal, cpuMs: number | undefined): FileconvError {
  const error = abortError(signal);
  if (cpuMs === undefined) return error;
  return new FileconvError(error.code, error.message, {
    cause: error.cause,
    details: { ...error.details, cpuMs },
  });
}

/** `text` with each path of `names` replaced by its name, and any other absolute path by its file name. */
export function redact(text: string, names: Record<string, string>): string {
  let result = text;
  for (const [path, name] of Object.entries(names)) result = result.split(path).join(name);
  return result.replace(/(?<![\w.<])\/(?:[^\s:/'"]+\/)+([^\s:/'"]*)/g, (_, file: string) => basename(file));
}

/** The last lines of a tool's stderr, for a message. */
export function stderrTail(stderr: string, lines = 6): string {
  return stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(-lines)
    .join(' | ');
}

/**
 * The error for a tool that exited with `code`, quoting its stderr: CONVERSION_FAILED (a fault
 * here, refunded) by default; pass 'CORRUPT_INPUT' (or another 4xx code) when the tool's own
 * words show the input is at fault.
 */
export function toolFailed(
  tool: CommandTool,
  outcome: ToolOutcome,
  doing: string,
  code: ErrorCode = 'CONVERSION_FAILED',
): FileconvError {
  const tail = stderrTail(outcome.stderr);
  return new FileconvError(
    code,
    `${COMMAND_TOOLS[tool].label} failed ${doing} (exit ${outcome.code})${tail ? `: ${tail}` : ''}`,
    { details: { tool, exitCode: outcome.code, stderr: tail } },
  );
}

/** Words tools print when an image is past a resource limit rather than broken. */
const LIMIT_WORDS =
  /exceeds limit|resource limit|cache resources exhausted|memory allocation failed|too large|max_pixels|Picture size \d+x\d+ is invalid/i;

/**
 * The error for a tool that failed: INPUT_LIMIT_EXCEEDED when it says a limit was hit,
 * CORRUPT_INPUT when it was decoding the user's file (`inputFault`), CONVERSION_FAILED otherwise.
 */
export function toolError(
  tool: CommandTool,
  outcome: ToolOutcome,
  doing: string,
  inputFault: boolean,
): FileconvError {
  if (LIMIT_WORDS.test(outcome.stderr)) return toolFailed(tool, outcome, doing, 'INPUT_LIMIT_EXCEEDED');
  return toolFailed(tool, outcome, doing, inputFault ? 'CORRUPT_INPUT' : 'CONVERSION_FAILED');
}
