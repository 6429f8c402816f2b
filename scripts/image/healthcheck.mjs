// The image's HEALTHCHECK. A server (`serve`, the default command) is healthy when GET /api/ready
// answers 200: its store, queue and engines answer. A worker serves no HTTP: it is healthy while
// it runs, unless it serves metrics (--metrics-port / FILECONV_METRICS_PORT), which must answer.
// The command is read from PID 1's arguments (tini -- fileconv <command> ...).
import { readFileSync } from 'node:fs';

const args = readFileSync('/proc/1/cmdline', 'utf8').split('\0').filter(Boolean);
const command = args.slice(args.indexOf('fileconv') + 1).find((arg) => !arg.startsWith('-')) ?? 'serve';
const flag = (name) => {
  const at = args.findIndex((arg) => arg === name || arg.startsWith(`${name}=`));
  if (at < 0) return undefined;
  return args[at].includes('=') ? args[at].split('=')[1] : args[at + 1];
};

let url;
if (command === 'serve') {
  const port = flag('--port') ?? flag('-p') ?? process.env.FILECONV_PORT ?? process.env.PORT ?? '3000';
  url = `http://127.0.0.1:${port}/api/ready`;
} else if (command === 'worker') {
  const port = flag('--metrics-port') ?? process.env.FILECONV_METRICS_PORT;
  if (port) url = `http://127.0.0.1:${port}/metrics`;
}
if (!url) process.exit(0);
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  if (!response.ok) console.error(`${url}: ${response.status} ${await response.text()}`);
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  console.error(`${url}: ${error.message}`);
  process.exit(1);
}
