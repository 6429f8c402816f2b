/**
 * A converter for the isolation tests: it writes a file into its process's TMPDIR, as exceljs
 * does through the `tmp` package, waits until the file its input names exists (the test has
 * looked), then runs out of heap, so its process is killed with no cleanup of its own.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Converter } from '../../src/index.js';

export function createTempWritingConverter(): Converter {
  return {
    name: 'temp-writer',
    edges: [{ from: 'txt', to: 'md', cost: 1 }],
    available: async () => ({ ok: true }),
    async convert(ctx) {
      await writeFile(join(tmpdir(), `tmp-${process.pid}-left-behind`), 'a worksheet copy');
      const go = (await readFile(ctx.inputPath, 'utf8')).trim();
      while (
        !(await access(go).then(
          () => true,
          () => false,
        ))
      )
        await sleep(20);
      const hoard: number[][] = [];
      for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
    },
  };
}
