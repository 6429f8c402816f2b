// Builds the web converter page's script: src/service/web/src/*.ts bundled and minified by
// esbuild (a devDependency, the one tsup uses) into src/service/web/app.js, which web-routes.ts serves and tsup's
// onSuccess copies into dist/. The built file is not committed (.gitignore): `npm run build`,
// `prepare` (npm install / npm ci) and the tests' globalSetup make it from the sources.
// An unchanged result is not rewritten: its mtime is compared with dist/'s (test/helpers/built-package.ts).
import { readFile, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const root = new URL('../src/service/web/', import.meta.url);
const outfile = new URL('app.js', root);

const result = await build({
  entryPoints: [new URL('src/main.ts', root).pathname],
  outfile: outfile.pathname,
  bundle: true,
  minify: true,
  format: 'esm',
  // Browsers of the last few years (import.meta, optional chaining, ??=).
  target: ['es2020'],
  platform: 'browser',
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
});
const code = result.outputFiles[0].contents;
const before = await readFile(outfile).catch(() => null);
if (!before?.equals(code)) await writeFile(outfile, code);
if (process.argv.includes('--verbose')) console.log(`src/service/web/app.js: ${code.length} bytes`);
