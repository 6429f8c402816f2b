#!/usr/bin/env node
// The `fileconv` command. The CLI is TypeScript built by `npm install` (the prepare script);
// this shim only finds the build and says what to do when it is missing.
import { existsSync } from 'node:fs';

const built = new URL('../dist/bin/cli.js', import.meta.url);
if (!existsSync(built)) {
  console.error('fileconv: the CLI is not built yet. Run `npm run build` in the package directory.');
  process.exit(1);
}
const { main } = await import(built.href);
process.exitCode = await main(process.argv);
