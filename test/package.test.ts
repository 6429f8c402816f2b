/**
 * package.json, the build and the source tree must agree (STYLE rule 5): every subpath export
 * points into dist/ at a file built from an existing source entry, and the core entry imports
 * no adapter or engine library.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageEntries } from '../scripts/package-entries.js';

const root = join(import.meta.dirname, '..');
interface Condition {
  types: string;
  default: string;
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { import: Condition; require: Condition }>;
  bin: Record<string, string>;
  files: string[];
};

describe('package.json', () => {
  // Patterns expanded: './converters/*' is each converter folder (scripts/package-entries.ts).
  const entries = packageEntries(root).map(({ subpath, target }) => [subpath, target] as const);

  for (const [subpath, { import: esm, require: cjs }] of entries) {
    it(`export ${subpath} has a source file, an ESM and a CommonJS build, each with its types`, () => {
      expect(esm.default).toMatch(/^\.\/dist\/.+\.js$/);
      expect(esm.types).toBe(esm.default.replace(/\.js$/, '.d.ts'));
      expect(cjs.default).toBe(esm.default.replace(/\.js$/, '.cjs'));
      // CommonJS declarations live apart (scripts/cjs-types.mjs says why).
      expect(cjs.types).toBe(
        esm.default.replace(/^\.\/dist\//, './dist/types-cjs/').replace(/\.js$/, '.d.ts'),
      );
      const source = esm.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(join(root, source)), source).toBe(true);
      expect(pkg.files).toContain('dist');
    });
  }

  it('names subpaths after their source files', () => {
    // The isolation kit kept the subpath of its first home, beside the converters it isolates.
    const renamed: Record<string, string> = { './converters/isolation': './dist/src/kit/isolation/index.js' };
    for (const [subpath, target] of entries) {
      if (subpath === '.' || subpath === './testing' || subpath === './client') continue;
      // A subpath is a file of that name, or a folder's index (fileconv/http), in its layer.
      const named = ['src', 'src/core', 'src/adapters', 'src/operations'].flatMap((layer) => [
        `./dist/${layer}${subpath.slice(1)}.js`,
        `./dist/${layer}${subpath.slice(1)}/index.js`,
      ]);
      expect([...named, renamed[subpath]]).toContain(target.import.default);
    }
  });

  it('makes every converter folder a subpath through one pattern', () => {
    expect(Object.keys(pkg.exports)).toContain('./converters/*');
    const folders = readdirSync(join(root, 'src', 'converters'));
    const converterSubpaths = entries
      .map(([subpath]) => subpath)
      .filter((s) => s.startsWith('./converters/'));
    expect(converterSubpaths.sort()).toEqual(
      [...folders.map((folder) => `./converters/${folder}`), './converters/isolation'].sort(),
    );
  });

  it('ships the CLI shim', () => {
    expect(pkg.bin.fileconv).toBe('bin/fileconv.js');
    expect(pkg.files).toContain('bin/fileconv.js');
  });

  it('keeps the core free of heavy libraries', () => {
    // grep exits 1 when nothing matches, which is the passing case. (The layers' own rule is
    // test/architecture.test.ts.)
    const pattern = "from '(sharp|heic-decode|exceljs|bullmq|ioredis|@aws-sdk|express)";
    const found = spawnSync('grep', ['-rlE', pattern, join(root, 'src', 'core')], { encoding: 'utf8' });
    expect(found.stdout).toBe('');
    expect(found.status).toBe(1);
  });
});
