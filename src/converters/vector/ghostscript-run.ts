/**
 * Runs Ghostscript on untrusted PostScript and PDF, as shut in as Ghostscript allows. PostScript
 * is a programming language: a file can loop forever, open other files, or ask for a page the
 * size of a house. So every run has -dSAFER (file access limited to the input named on the
 * command line, the output, and Ghostscript's own resources and fonts; no %pipe%, no device
 * changes), a memory cap (-K: past it the program fails with /VMerror; without it a loop of
 * allocations takes whatever the machine has), a time limit with the process killed at it, and a
 * TMPDIR of its own.
 *
 * The TMPDIR matters: measured with Ghostscript 10.0, -dSAFER still lets a PostScript program
 * read and write any file in the temp directory (Ghostscript permits it so it can spool pages
 * there), so with the system's /tmp a file could read other conversions' inputs or leave files
 * behind. Each run gets an empty folder inside the conversion's work folder instead.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type ErrorCode, FileconvError } from '../../core/errors.js';
import { runTool, stderrTail, type ToolOutcome, toolFailed } from '../../kit/command-tools.js';

export interface GhostscriptRun {
  /** A private folder of this conversion (removed by the caller): Ghostscript's TMPDIR lives in it. */
  workDir: string;
  signal: AbortSignal;
  timeoutMs: number;
  /** Most memory Ghostscript may allocate, KiB (-K). */
  memoryKiB: number;
  /** Paths in messages -> what the caller should see instead. */
  names: Record<string, string>;
}

/** Switches of every run: quiet, sandboxed, batch mode, no prompts. */
const BASE_ARGS = ['-q', '-dSAFER', '-dBATCH', '-dNOPAUSE', '-dNOPROMPT'] as const;

/** Runs gs with `args` after the sandbox switches; resolves whatever the exit code. */
export async function runGhostscript(args: readonly string[], run: GhostscriptRun): Promise<ToolOutcome> {
  const tmp = join(run.workDir, 'gs-tmp');
  await mkdir(tmp, { recursive: true });
  return runTool('gs', [...BASE_ARGS, `-K${run.memoryKiB}`, ...args], {
    signal: run.signal,
    timeoutMs: run.timeoutMs,
    names: run.names,
    cwd: tmp,
    env: { ...process.env, TMPDIR: tmp, TEMP: tmp, TMP: tmp },
  });
}

/** A PostScript string literal of `text` (paths may hold parentheses and backslashes). */
export function postScriptString(text: string): string {
  return `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;
}

/** '%' in an output name is a page-number template to Ghostscript. */
export const outputFileArg = (path: string) => `-sOutputFile=${path.replaceAll('%', '%%')}`;

/**
 * Ghostscript's words for input at fault, in order. PostScript errors ('Error: /undefined in
 * foo') mean the program is broken (a truncated file ends mid-token, a file that is not
 * PostScript fails on its first word); 'invalidfileaccess' is -dSAFER refusing a file the program
 * tried to open; a page size the device refuses, or memory the program exhausts, is a limit.
 */
const INPUT_FAULTS: readonly (readonly [RegExp, ErrorCode, string])[] = [
  [
    /invalidfileaccess|invalidaccess/,
    'UNSAFE_INPUT',
    'it tried to open a file other than its own, which is refused',
  ],
  [
    /configurationerror in --setpagedevice--/,
    'INPUT_LIMIT_EXCEEDED',
    'it asks for a page size beyond the limits',
  ],
  [/VMerror/, 'INPUT_LIMIT_EXCEEDED', 'it needs more memory than allowed'],
  [/password|[Ee]ncrypt/, 'PASSWORD_PROTECTED', 'it is encrypted'],
  [
    /Error: \/|\*\*\*\* Error|Unrecoverable error|Couldn't|not a PDF|No pages/i,
    'CORRUPT_INPUT',
    'it is damaged or not what it claims to be',
  ],
];

/**
 * The error for a failed run: a 4xx code when Ghostscript's words blame the input, else
 * `fallback` (CONVERSION_FAILED, a fault here, unless the caller knows better).
 */
export function ghostscriptFailed(
  outcome: ToolOutcome,
  doing: string,
  what: string,
  fallback: ErrorCode = 'CONVERSION_FAILED',
): FileconvError {
  const text = `${outcome.stderr}\n${outcome.stdout}`;
  const tail = stderrTail(text, 4);
  for (const [pattern, code, why] of INPUT_FAULTS) {
    if (pattern.test(text))
      return inputFault(code, `Ghostscript could not read the ${what}: ${why}`, outcome, tail);
  }
  if (fallback === 'CONVERSION_FAILED') return toolFailed('gs', outcome, doing);
  return inputFault(fallback, `Ghostscript found nothing to convert in the ${what}`, outcome, tail);
}

function inputFault(code: ErrorCode, message: string, outcome: ToolOutcome, tail: string): FileconvError {
  return new FileconvError(code, `${message}${tail ? ` (${tail})` : ''}`, {
    details: { tool: 'gs', exitCode: outcome.code, stderr: tail },
  });
}

export interface PdfFacts {
  pages: number;
  /** The asked page's MediaBox [x0 y0 x1 y1], when that page exists. */
  mediaBox?: readonly [number, number, number, number];
}

/**
 * Page count of a PDF, and the MediaBox of `page`, asked of Ghostscript's own PDF interpreter (the
 * one that renders it next), with read access to that one file only.
 */
export async function pdfFacts(
  pdf: string,
  page: number,
  run: GhostscriptRun,
  what: string,
): Promise<PdfFacts> {
  const program = [
    `${postScriptString(pdf)} (r) file runpdfbegin`,
    `pdfpagecount dup = ${page} ge { ${page} pdfgetpage /MediaBox pget { == } if } if quit`,
  ].join(' ');
  const outcome = await runGhostscript(['-dNODISPLAY', `--permit-file-read=${pdf}`, '-c', program], run);
  const [count, box] = outcome.stdout.split('\n');
  const pages = Number(count);
  if (outcome.code !== 0 || !Number.isInteger(pages))
    throw ghostscriptFailed(outcome, 'reading the PDF', what);
  // An encrypted or unreadable PDF opens as one of no pages, exit 0: the messages say which.
  if (pages < 1) throw ghostscriptFailed(outcome, 'reading the PDF', what, 'CORRUPT_INPUT');
  const numbers = box?.match(/-?\d+(?:\.\d+)?/g)?.map(Number);
  if (numbers?.length !== 4) return { pages };
  const [x0 = 0, y0 = 0, x1 = 0, y1 = 0] = numbers;
  return { pages, mediaBox: [x0, y0, x1, y1] };
}
