#!/usr/bin/env node
// The `fileconv` command. The CLI is TypeScript built by `npm install` (the prepare script);
// this shim only finds the build and says what to do when it is missing.
import { existsSync } from 'node:fs';
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code of the CLI's modules between runs, so a shell loop over a
// folder does not compile them again for every file (not measured here: this machine has Node
// 20, which has no such cache, and where this does nothing).
module.enableCompileCache?.();

const built = new URL('../dist/bin/cli.js', import.meta.url);
if (!existsSync(built)) {
  console.error('fileconv: the CLI is not built yet. Run `npm run build` in the package directory.');
  process.exit(1);
}
// `fileconv formats | head`: the reader went away, which is not an error of ours.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { main } = await import(built.href);
process.exitCode = await main(process.argv);
