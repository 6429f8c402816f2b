/** `fileconv pdf merge|split|rotate`: the operations of fileconv/pdf on local files. */
import { extractPages, mergePdfs, rotatePages } from '../../adapters/pdf/operations.js';

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
