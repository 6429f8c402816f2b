/** `fileconv convert <input> [output]`: one file, with a progress bar on a terminal. */
import { rename } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { defaultConverters } from '../../adapters/preset/converters.js';
import {
  createEngine,
  extensionOf,
  FileconvError,
  formatFromExtension,
  requireFormat,
} from '../../src/index.js';
import { outputFileError } from '../../src/local-files.js';
import { baseName } from '../../src/names.js';

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
  for (const [key, value] of Object.entries(flags.option ?? {})) options[key] = parseScalar(value);
  return options;
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
  let outputPath = resolve(output ?? `${baseName(basename(input))}.${extensionOf(to)}`);
  const engine = createEngine({ converters: defaultConverters() });
  const showProgress = !flags.quiet && !flags.json && process.stderr.isTTY;
  const bar = showProgress
    ? new cliProgress.SingleBar(
        {
          format: `${basename(input)} -> ${basename(outputPath)} [{bar}] {percentage}% | {duration_formatted}`,
          stream: process.stderr,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
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
    if (report.packaging === 'zip' && output === undefined) {
      const zipped = resolve(`${baseName(basename(input))}.zip`);
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
