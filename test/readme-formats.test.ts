/** The README's format table is the registry's: regenerate it with `npx tsx scripts/readme-formats.ts`. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFormatsTable } from '../scripts/readme-formats.js';
import { FORMATS } from '../src/core/formats/index.js';

describe("README's format table", () => {
  it('matches the registry (run `npx tsx scripts/readme-formats.ts` after changing formats)', async () => {
    const readme = await readFile(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    expect(readme).toBe(withFormatsTable(readme));
    for (const format of FORMATS) expect(readme).toContain(` ${format.name}`);
  });
});
