/** `fileconv formats`: every format, its extensions and the targets it converts to here. */

import { createConverter, FileconvError, FORMAT_FAMILIES, type FormatFamily } from '../../src/index.js';
import { defaultConverters } from '../../src/preset/converters.js';

export async function runFormats(flags: { family?: string; json?: boolean }): Promise<void> {
  if (flags.family !== undefined && !FORMAT_FAMILIES.includes(flags.family as FormatFamily)) {
    throw new FileconvError(
      'INVALID_REQUEST',
      `Unknown family "${flags.family}": use one of ${FORMAT_FAMILIES.join(', ')}.`,
    );
  }
  const engine = createConverter({ converters: defaultConverters() });
  const formats = (await engine.formats()).filter(
    (format) => !flags.family || format.family === flags.family,
  );
  if (flags.json) {
    const rows = formats.map(({ name, family, label, extensions, mimeTypes, aliases, targets }) => ({
      name,
      family,
      label,
      extensions,
      mimeTypes,
      aliases,
      targets,
    }));
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const rows = formats.map((format) => [
    format.name,
    format.family,
    format.extensions.map((extension) => `.${extension}`).join(' '),
    format.targets.length > 0 ? format.targets.join(' ') : '-',
  ]);
  process.stdout.write(table(['FORMAT', 'FAMILY', 'EXTENSIONS', 'CONVERTS TO'], rows));
  const convertible = formats.filter((format) => format.targets.length > 0).length;
  process.stdout.write(
    `\n${formats.length} formats, ${convertible} convertible here. Run \`fileconv doctor\` to enable more.\n`,
  );
}

/** A plain left-aligned text table; the last column is not padded. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, index) =>
    Math.max(cell.length, ...rows.map((row) => row[index]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, index) => (index === cells.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}
