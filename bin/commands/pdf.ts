/** `fileconv pdf merge|split|rotate|info|meta`: the operations of fileconv/pdf on local files. */
import {
  extractPages,
  mergePdfs,
  readPdfMetadata,
  rotatePages,
  writePdfMetadata,
} from '../../adapters/pdf/operations.js';

export interface PdfCommand {
  op: 'merge' | 'split' | 'rotate';
  inputs: string[];
  output: string;
  pages?: string;
  angle?: number;
}

export async function runPdf(command: PdfCommand): Promise<void> {
  const [first = ''] = command.inputs;
  const result =
    command.op === 'merge'
      ? await mergePdfs(command.inputs, command.output)
      : command.op === 'split'
        ? await extractPages(first, command.pages ?? 'all', command.output)
        : await rotatePages(first, command.angle ?? 0, command.output, { pages: command.pages });
  process.stdout.write(`pdf ${command.op}: wrote ${command.output} (${result.pages} page(s))\n`);
}

export async function runPdfInfo(input: string, options: { json?: boolean }): Promise<void> {
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
