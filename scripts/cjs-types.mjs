#!/usr/bin/env node
/**
 * Runs after tsup (npm run build): moves the CommonJS build's declarations (dist/**\/*.d.cts) to
 * dist/types-cjs/**\/*.d.ts, under a package.json that says "commonjs", with their `.cjs`
 * specifiers renamed `.js`. TypeScript reads them as CommonJS declarations just the same (attw is
 * clean under node16, nodenext and bundler), and no `.d.cts` file is left in dist/: bundlers that
 * trace a server package's files (Next.js's Turbopack follows every dynamic fs call into
 * dist/**) parse a `.d.cts` as a CommonJS module and fail on its `import`/`export` syntax.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const dist = join(import.meta.dirname, '..', 'dist');
const target = join(dist, 'types-cjs');
rmSync(target, { recursive: true, force: true });

let moved = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.cts')) continue;
  const from = join(entry.parentPath, entry.name);
  const to = join(target, relative(dist, from).replace(/\.d\.cts$/, '.d.ts'));
  const text = readFileSync(from, 'utf8').replace(/(['"])(\.{1,2}\/[^'"]*?)\.cjs\1/g, '$1$2.js$1');
  mkdirSync(dirname(to), { recursive: true });
  writeFileSync(to, text);
  rmSync(from);
  moved++;
}
writeFileSync(join(target, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
console.log(`cjs-types: ${moved} CommonJS declaration files moved to dist/types-cjs/`);
