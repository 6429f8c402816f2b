/**
 * `fileconv pdf merge|split|rotate|info|meta|compress|pdfa|watermark|protect|unlock|thumbnail`:
 * the operations of fileconv/pdf on local files. Each prints one line saying what it wrote.
 */
import { extname } from 'node:path';
import type { PdfaLevel } from '../../src/operations/pdf/pdfa.js';
import type { WatermarkOptions } from '../../src/operations/pdf/watermark.js';

// Each command imports only its own operation's module: `fileconv pdf merge` does not load the
// thumbnail renderer, Ghostscript's or qpdf's drivers, or the watermark's text layout.
const operations = () => import('../../src/operations/pdf/operations.js');

export interface PdfCommand {
  op: 'merge' | 'split' | 'rotate';
  inputs: string[];
  output: string;
  pages?: string;
  angle?: number;
}

export async function runPdf(command: PdfCommand): Promise<void> {
  const [first = ''] = command.inputs;
  const { extractPages, mergePdfs, rotatePages } = await operations();
  const result =
    command.op === 'merge'
      ? await mergePdfs(command.inputs, command.output)
      : command.op === 'split'
        ? await extractPages(first, command.pages ?? 'all', command.output)
        : await rotatePages(first, command.angle ?? 0, command.output, { pages: command.pages });
  process.stdout.write(`pdf ${command.op}: wrote ${command.output} (${result.pages} page(s))\n`);
}

export async function runPdfInfo(input: string, options: { json?: boolean }): Promise<void> {
  const { readPdfMetadata } = await operations();
  const metadata = await readPdfMetadata(input);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(metadata, null, 2)}\n`);
    return;
  }
  for (const [field, value] of Object.entries(metadata)) {
    process.stdout.write(`${`${field}:`.padEnd(10)} ${Array.isArray(value) ? value.join(', ') : value}\n`);
  }
}

export async function runPdfMeta(
  input: string,
  options: { title?: string; author?: string; subject?: string; keywords?: string; output: string },
): Promise<void> {
  const { output, keywords, ...fields } = options;
  const { writePdfMetadata } = await operations();
  const written = await writePdfMetadata(
    input,
    {
      ...fields,
      ...(keywords === undefined ? {} : { keywords: keywords.split(',').map((word) => word.trim()) }),
    },
    output,
  );
  process.stdout.write(`pdf meta: wrote ${output} (title: ${written.title ?? '-'})\n`);
}

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export async function runPdfSplitEveryPage(
  input: string,
  options: { pages?: string; output: string },
): Promise<void> {
  const { splitEveryPage } = await import('../../src/operations/pdf/split-every-page.js');
  const result = await splitEveryPage(input, options.output, { pages: options.pages });
  say(`pdf split: wrote ${options.output} (${result.pages} PDF(s), one a page)`);
}

export async function runPdfCompress(
  input: string,
  options: { quality?: number; resolution?: number; output: string },
): Promise<void> {
  const { compressPdf } = await import('../../src/operations/pdf/compress.js');
  const result = await compressPdf(input, options.output, {
    quality: options.quality,
    resolution: options.resolution,
  });
  const saved = result.keptOriginal
    ? 'no smaller when recompressed: the original is kept'
    : `${kib(result.inputBytes)} -> ${kib(result.outputBytes)}, saved ${Math.round((100 * result.savedBytes) / result.inputBytes)}%`;
  say(`pdf compress: wrote ${options.output} (${result.pages} page(s); ${saved})`);
}

export async function runPdfA(input: string, options: { level?: string; output: string }): Promise<void> {
  const { convertToPdfA } = await import('../../src/operations/pdf/pdfa.js');
  const result = await convertToPdfA(input, options.output, {
    level: options.level as PdfaLevel | undefined,
  });
  say(`pdf pdfa: wrote ${options.output} (PDF/A-${result.level}, ${result.pages} page(s))`);
}

export async function runPdfWatermark(
  input: string,
  options: Record<string, unknown> & { output: string },
): Promise<void> {
  const { output, ...rest } = options;
  const { watermarkPdf } = await import('../../src/operations/pdf/watermark.js');
  const result = await watermarkPdf(input, output, rest as WatermarkOptions);
  say(`pdf watermark: wrote ${output} (${result.stamped} of ${result.pages} page(s) stamped)`);
}

/** The flags of `fileconv pdf protect` as commander parses them. */
export interface PdfProtectFlags {
  password: string;
  ownerPassword?: string;
  print: boolean;
  copy: boolean;
  modify: boolean;
  output: string;
}

export async function runPdfProtect(input: string, options: PdfProtectFlags): Promise<void> {
  const permissions = {
    print: options.print ? ('full' as const) : ('none' as const),
    copy: options.copy,
    modify: options.modify,
  };
  const { protectPdf } = await import('../../src/operations/pdf/protect.js');
  const result = await protectPdf(input, options.output, {
    password: options.password,
    ownerPassword: options.ownerPassword,
    permissions,
  });
  say(`pdf protect: wrote ${options.output} (${result.encryption}, ${result.pages} page(s))`);
}

export async function runPdfUnlock(
  input: string,
  options: { password: string; output: string },
): Promise<void> {
  const { unlockPdf } = await import('../../src/operations/pdf/protect.js');
  const result = await unlockPdf(input, options.output, { password: options.password });
  say(
    `pdf unlock: wrote ${options.output} (${result.pages} page(s)${result.wasEncrypted ? '' : '; it was not encrypted'})`,
  );
}

export async function runPdfThumbnail(
  input: string,
  options: { width?: number; format?: string; output: string },
): Promise<void> {
  const format = options.format ?? (extname(options.output).toLowerCase() === '.webp' ? 'webp' : 'png');
  const { pdfThumbnail } = await import('../../src/operations/pdf/thumbnail.js');
  const result = await pdfThumbnail(input, options.output, {
    width: options.width,
    format: format as 'png' | 'webp',
  });
  say(`pdf thumbnail: wrote ${options.output} (${result.width}x${result.height} ${result.format})`);
}
