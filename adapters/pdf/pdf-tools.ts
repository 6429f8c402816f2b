/**
 * The command-line PDF tools some operations run: qpdf (Apache-2.0; encryption, page counts) and
 * Ghostscript (AGPL-3.0; image recompression, PDF/A). Each is found at its environment override
 * (QPDF_PATH, GHOSTSCRIPT_PATH) or on PATH, and run without a shell, stdin closed, killed on
 * abort or timeout and reaped before the call settles. A missing tool is ENGINE_UNAVAILABLE with
 * the line that installs it; a failing one keeps the end of its stderr for the message, with the
 * machine's paths replaced by the names the caller knows.
 */
import { basename } from 'node:path';
import { abortError } from '../../src/abort.js';
import { FileconvError } from '../../src/errors.js';
import { findOnPath, isExecutable } from '../converters/executables.js';
import { type ChildOutcome, runChild } from '../converters/media/child-process.js';

export type PdfTool = 'qpdf' | 'gs';

interface ToolInfo {
  /** What people call it in messages. */
  label: string;
  /** The environment variable naming its path. */
  env: string;
  /** Its Debian package and licence: Ghostscript's AGPL matters to whoever ships it. */
  install: string;
}

export const PDF_TOOLS: Readonly<Record<PdfTool, ToolInfo>> = {
  qpdf: {
    label: 'qpdf',
    env: 'QPDF_PATH',
    install: 'apt-get install qpdf (Apache-2.0; brew install qpdf), or set QPDF_PATH',
  },
  gs: {
    label: 'Ghostscript',
    env: 'GHOSTSCRIPT_PATH',
    install: 'apt-get install ghostscript (AGPL-3.0; brew install ghostscript), or set GHOSTSCRIPT_PATH',
  },
};

/** Default limit of one tool run: a 256 MiB scan recompresses in well under a minute. */
export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60_000;

export interface PdfToolRunOptions {
  /** Stops the tool (SIGKILL) and fails the call with CANCELED. */
  signal?: AbortSignal | undefined;
  /** Stops the tool after this many milliseconds (CONVERSION_TIMEOUT). Default 5 minutes. */
  timeoutMs?: number | undefined;
}

/** The tool's executable: its environment override, else PATH; ENGINE_UNAVAILABLE naming the install. */
export async function locatePdfTool(tool: PdfTool): Promise<string> {
  const info = PDF_TOOLS[tool];
  const configured = process.env[info.env];
  const found = configured
    ? (await isExecutable(configured))
      ? configured
      : undefined
    : await findOnPath(tool, ['/usr/bin', '/usr/local/bin', '/opt/homebrew/bin']);
  if (found) return found;
  const where = configured ? `${info.env}=${configured} is not executable` : `no ${tool} on PATH`;
  throw new FileconvError('ENGINE_UNAVAILABLE', `This PDF operation needs ${info.label}: ${where}.`, {
    details: { tool, install: info.install },
  });
}

/** What a finished run left: the exit code and the end of stderr, paths replaced. */
export interface PdfToolOutcome {
  code: number | null;
  stderr: string;
  stdout: string;
}

/**
 * Runs `tool` with `args`; resolves with its exit code whatever it is (qpdf's 3 means "done, with
 * warnings"). `names` maps paths in its output to what the caller should see instead.
 */
export async function runPdfTool(
  tool: PdfTool,
  args: readonly string[],
  options: PdfToolRunOptions & { names?: Record<string, string>; keepStdout?: number },
): Promise<PdfToolOutcome> {
  const command = await locatePdfTool(tool);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const outcome: ChildOutcome = await runChild(command, args, {
    signal,
    keepStdout: options.keepStdout ?? 64 * 1024,
  });
  if (outcome.aborted) throw abortError(signal);
  if (outcome.spawnError) {
    throw new FileconvError(
      'ENGINE_UNAVAILABLE',
      `${PDF_TOOLS[tool].label} could not be started: ${outcome.spawnError.message}`,
      { cause: outcome.spawnError, details: { tool, install: PDF_TOOLS[tool].install } },
    );
  }
  return {
    code: outcome.code,
    stderr: redact(outcome.stderr, options.names ?? {}),
    stdout: outcome.stdout,
  };
}

/** `text` with each path of `names` replaced by its name, and any other absolute path by its file name. */
function redact(text: string, names: Record<string, string>): string {
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

/** CONVERSION_FAILED for a tool that exited with `code`, quoting its stderr. */
export function toolFailed(tool: PdfTool, outcome: PdfToolOutcome, doing: string): FileconvError {
  const tail = stderrTail(outcome.stderr);
  return new FileconvError(
    'CONVERSION_FAILED',
    `${PDF_TOOLS[tool].label} failed ${doing} (exit ${outcome.code})${tail ? `: ${tail}` : ''}`,
    { details: { tool, exitCode: outcome.code, stderr: tail } },
  );
}
