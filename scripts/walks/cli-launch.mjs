// Runs the fileconv CLI of a tree from its TypeScript sources (as bin/fileconv.js runs dist/bin/cli.js),
// with a SIGUSR2 handler that calls v8.takeCoverage() (writes a coverage file under NODE_V8_COVERAGE and resets counters).
// usage: NODE_V8_COVERAGE=dir node --import tsx cli-launch.mjs <tree> <cli args...>

import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';

const [tree, ...args] = process.argv.slice(2);
let taken = 0;
process.on('SIGUSR2', () => {
  v8.takeCoverage();
  taken += 1;
  process.stderr.write(`[walks] coverage snapshot ${taken} taken (pid ${process.pid})\n`);
});
const { main } = await import(pathToFileURL(`${tree}/bin/cli.ts`).href);
process.exitCode = await main(['node', 'fileconv', ...args]);
