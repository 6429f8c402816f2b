/**
 * fileconv/client must run in a browser: no Node built-ins, no server libraries, no Node globals
 * like Buffer, and imports only of its own files, plus the server's wire types (type-only,
 * erased at build). Bundled as a browser would get it, it holds its own files and nothing else.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const CLIENT_DIR = join(import.meta.dirname, '..', '..', 'client');

async function sources(): Promise<Array<{ name: string; text: string }>> {
  const names = (await readdir(CLIENT_DIR)).filter((name) => name.endsWith('.ts'));
  return Promise.all(
    names.map(async (name) => ({ name, text: await readFile(join(CLIENT_DIR, name), 'utf8') })),
  );
}

/** Every module specifier of a source: import/export ... from '...', bare import '...', import('...'). */
function specifiers(text: string): Array<{ specifier: string; typeOnly: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean }> = [];
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gms)) {
    found.push({ specifier: match[3]!, typeOnly: Boolean(match[2]) });
  }
  for (const match of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm))
    found.push({ specifier: match[1]!, typeOnly: false });
  for (const match of text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g))
    found.push({ specifier: match[1]!, typeOnly: false });
  return found;
}

describe('fileconv/client sources', () => {
  it('import nothing from node:, no packages, and no Node-only globals', async () => {
    const files = await sources();
    expect(files.map((file) => file.name)).toContain('index.ts');
    for (const { name, text } of files) {
      for (const { specifier, typeOnly } of specifiers(text)) {
        expect(specifier, `${name} imports ${specifier}`).not.toMatch(/^node:/);
        // Runtime imports stay inside client/; the server's wire types (its error codes among
        // them) come in type-only, and from the wire module alone.
        if (!typeOnly) expect(specifier, `${name} imports ${specifier}`).toMatch(/^\.\/[\w-]+\.js$/);
        else if (!specifier.startsWith('./')) {
          expect(specifier, `${name} imports ${specifier}`).toBe('../src/service/wire/index.js');
        }
      }
      const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, `${name} uses Buffer`).not.toMatch(/\bBuffer\b/);
      expect(code, `${name} uses require`).not.toMatch(/\brequire\(/);
    }
  });

  it('bundled for a browser: only client/ files, no zod, no server code', async () => {
    const result = await build({
      entryPoints: [join(CLIENT_DIR, 'index.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      metafile: true,
      logLevel: 'silent',
    });
    const root = join(CLIENT_DIR, '..');
    const inputs = Object.keys(result.metafile.inputs).map((input) => relative(root, join(root, input)));
    expect(inputs).toContain('client/index.ts');
    expect(inputs.filter((input) => !input.startsWith('client/'))).toEqual([]);
    expect(result.outputFiles[0]!.text).not.toMatch(/\bzod\b/);
  });

  it('the checker sees imports of every form', () => {
    const sample =
      "import { a } from 'node:fs';\nimport type { B } from '../src/x.js';\nimport 'node:path';\nexport * from './y.js';\nawait import('node:os');";
    expect(specifiers(sample)).toEqual([
      { specifier: 'node:fs', typeOnly: false },
      { specifier: '../src/x.js', typeOnly: true },
      { specifier: './y.js', typeOnly: false },
      { specifier: 'node:path', typeOnly: false },
      { specifier: 'node:os', typeOnly: false },
    ]);
  });
});
