/**
 * `fileconv convert <input> [output]`: one file, with a progress bar on a terminal. The input may
 * be a web page's URL instead of a file: it is written to a temporary URL file (the 'url' format)
 * and converted like any file, so the Chromium converter's address rules apply
 * (FILECONV_URL_ALLOW_PRIVATE=1 lets it reach intranet and loopback addresses).
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
// From the modules themselves, not the package root: `import 'fileconv'` loads the job engine,
// the service's schemas and every port too, which one conversion has no use for.
import { FileconvError } from '../../src/core/errors.js';
import {
  extensionOf,
  formatFromExtension,
  requireFormat,
  urlFileContent,
} from '../../src/core/formats/index.js';
import { baseName } from '../../src/core/names.js';
import { createConverter } from '../../src/engine/file-converter.js';
import { outputFileError } from '../../src/kit/local-files.js';
import { lazyDefaultConverters } from '../../src/preset/converter-index.js';

export interface ConvertFlags {
  to?: string;
  from?: string;
  quality?: number;
  width?: number;
  height?: number;
  fit?: string;
  background?: string;
  lossless?: boolean;
  effort?: number;
  keepMetadata?: boolean;
  animated?: boolean;
  paper?: string;
  landscape?: boolean;
  margin?: string;
  javascript?: boolean;
  waitFor?: string;
  option?: Record<string, string>;
  timeout?: number;
  quiet?: boolean;
  json?: boolean;
}

/** Conversion options from flags: only what was given, so converter defaults apply otherwise. */
export function optionsFromFlags(flags: ConvertFlags): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (flags.quality !== undefined) options.quality = flags.quality;
  if (flags.width !== undefined) options.width = flags.width;
  if (flags.height !== undefined) options.height = flags.height;
  if (flags.fit !== undefined) options.fit = flags.fit;
  if (flags.background !== undefined) options.background = flags.background;
  if (flags.lossless) options.lossless = true;
  if (flags.effort !== undefined) options.effort = flags.effort;
  if (flags.keepMetadata) options.stripMetadata = false;
  if (flags.animated === false) options.animated = false;
  // Web pages (the Chromium converter): its option names, from flags a print dialog would have.
  if (flags.paper !== undefined) options.paper = paperName(flags.paper);
  if (flags.landscape) options.landscape = true;
  if (flags.margin !== undefined) options.margin = marginSides(flags.margin);
  if (flags.javascript) options.javascript = true;
  if (flags.waitFor !== undefined) options.waitFor = flags.waitFor;
  for (const [key, value] of Object.entries(flags.option ?? {})) options[key] = parseScalar(value);
  return options;
}

/** 'letter' as the converter spells it ('Letter', 'A4'); the converter judges the name. */
function paperName(paper: string): string {
  const trimmed = paper.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1).toLowerCase();
}

/** CSS margin shorthand ('20mm', '10mm 15mm', up to four values, top first, clockwise) as the four sides. */
function marginSides(margin: string): Record<'top' | 'right' | 'bottom' | 'left', string> {
  const values = margin
    .trim()
    .split(/[\s,]+/)
    .filter(Boolean);
  if (values.length < 1 || values.length > 4) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `--margin: expected one to four lengths as in CSS ('20mm', '10mm 15mm'), got '${margin}'.`,
    );
  }
  const [top, right = top, bottom = top, left = right] = values as [string, ...string[]];
  return { top, right, bottom, left };
}

/** An input naming a web page rather than a file: a scheme of two letters or more (C:\ is a drive). */
export function isUrlInput(input: string): boolean {
  return /^[a-z][a-z0-9+.-]+:/i.test(input);
}

/** `--option k=v` values arrive as text: numbers and booleans are passed as such. */
function parseScalar(value: string): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return value;
}

export async function runConvert(
  input: string,
  output: string | undefined,
  flags: ConvertFlags,
): Promise<void> {
  const target = flags.to ?? (output ? formatFromExtension(output)?.name : undefined);
  if (!target) {
    throw new FileconvError(
      'INVALID_REQUEST',
      output
        ? `Cannot tell the target format from "${basename(output)}": pass --to <format>.`
        : 'Give an output file or --to <format>.',
    );
  }
  const to = requireFormat(target).name;
  if (isUrlInput(input)) {
    // The page's URL goes to the engine as a URL file; the result is named after the site.
    const work = await mkdtemp(join(tmpdir(), 'fileconv-url-'));
    try {
      const urlFile = join(work, 'page.url');
      await writeFile(urlFile, urlFileContent(input));
      await convertLocal({
        input: urlFile,
        shown: input,
        output: output ?? `${siteName(input)}.${extensionOf(to)}`,
        named: output !== undefined,
        flags: { ...flags, from: flags.from ?? 'url' },
        to,
      });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    return;
  }
  await convertLocal({
    input,
    shown: basename(input),
    output: output ?? `${baseName(basename(input))}.${extensionOf(to)}`,
    named: output !== undefined,
    flags,
    to,
  });
}

interface LocalConversion {
  input: string;
  /** How the input is named on screen: the file's name, or the URL. */
  shown: string;
  output: string;
  /** Whether the user named the output (else a zip of several results gets .zip). */
  named: boolean;
  flags: ConvertFlags;
  to: string;
}

/** A file name for what a URL shows: its host ('example.com'), or 'page'. */
function siteName(url: string): string {
  try {
    return new URL(url).hostname.replace(/[^\w.-]/g, '_') || 'page';
  } catch {
    return 'page';
  }
}

/** A progress bar on stderr; its library is loaded only when a terminal shows it (17 modules). */
async function progressBar(label: string) {
  const { default: cliProgress } = await import('cli-progress');
  return new cliProgress.SingleBar(
    { format: `${label} [{bar}] {percentage}% | {duration_formatted}`, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
}

async function convertLocal({ input, shown, output, named, flags, to }: LocalConversion): Promise<void> {
  let outputPath = resolve(output);
  // defaultConverters(), each converter imported only when this conversion needs it.
  const engine = createConverter({ converters: lazyDefaultConverters() });
  const showProgress = !flags.quiet && !flags.json && process.stderr.isTTY;
  const bar = showProgress ? await progressBar(`${shown} -> ${basename(outputPath)}`) : undefined;
  bar?.start(100, 0);
  const started = performance.now();
  try {
    const report = await engine.convertFile(input, outputPath, {
      to,
      from: flags.from,
      options: optionsFromFlags(flags),
      timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000,
      onProgress: (fraction) => bar?.update(Math.round(fraction * 100)),
    });
    bar?.update(100);
    bar?.stop();
    // Several outputs (every page of a PDF) come as one zip: a name we chose gets its extension.
    if (report.packaging === 'zip' && !named) {
      const zipped = resolve(`${baseName(basename(output))}.zip`);
      await rename(outputPath, zipped).catch((error: unknown) => {
        throw outputFileError(zipped, error);
      });
      outputPath = zipped;
    }
    const seconds = (performance.now() - started) / 1000;
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ output: outputPath, seconds, ...report })}\n`);
    } else if (!flags.quiet) {
      process.stdout.write(
        `${report.path.join(' -> ')}: wrote ${outputPath} (${formatBytes(report.outputSize)}) in ${seconds.toFixed(2)} s\n`,
      );
    }
  } catch (error) {
    bar?.stop();
    throw error;
  } finally {
    // Stops LibreOffice's warm workers, if the conversion started any.
    await engine.close();
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
