/** `fileconv doctor`: which conversion engines can run here, and how to install the missing ones. */
import { createEngine } from '../../src/index.js';
import { defaultConverters } from '../assembly.js';
import { table } from './formats.js';

/** Prints the report; returns 0 when every engine is available, 1 otherwise. */
export async function runDoctor(flags: { json?: boolean }): Promise<number> {
  const engine = createEngine({ converters: defaultConverters() });
  const converters = await engine.converters();
  const missing = converters.filter((converter) => !converter.ok);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ node: process.version, converters }, null, 2)}\n`);
    return missing.length === 0 ? 0 : 1;
  }
  const rows = converters.map((converter) => [
    converter.name,
    converter.ok ? 'ok' : 'MISSING',
    converter.ok ? (converter.version ?? '') : (converter.reason ?? ''),
    `${converter.edges} conversions`,
  ]);
  process.stdout.write(`Node.js ${process.version}\n\n`);
  process.stdout.write(table(['ENGINE', 'STATUS', 'DETAILS', 'PROVIDES'], rows));
  if (missing.length > 0) {
    process.stdout.write('\nTo install what is missing:\n');
    for (const converter of missing)
      process.stdout.write(`  ${converter.name}: ${converter.install ?? converter.reason ?? 'see README'}\n`);
  }
  return missing.length === 0 ? 0 : 1;
}
