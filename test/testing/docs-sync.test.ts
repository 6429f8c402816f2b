/**
 * docs/testing.md shows test/testing/docs-example.test.ts verbatim: the code block after the
 * `docs-example` marker must equal that file, so the documented example is always one that runs.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const MARKER = /<!-- docs-example: (\S+) -->\r?\n```ts\r?\n([\s\S]*?)\r?\n```/g;

describe('docs/testing.md', () => {
  it('shows each marked example exactly as the test file that runs it', async () => {
    const docs = await readFile(join(ROOT, 'docs', 'testing.md'), 'utf8');
    const blocks = [...docs.matchAll(MARKER)];
    expect(blocks.map((block) => block[1])).toEqual(['test/testing/docs-example.test.ts']);
    for (const [, file, code] of blocks) {
      const source = await readFile(join(ROOT, file!), 'utf8');
      expect(code!.trim(), `docs/testing.md differs from ${file}`).toBe(source.trim());
    }
  });
});
