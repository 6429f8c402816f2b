// The soak's health prober, in a worker thread of its own so that the load the soak's clients
// put on their own event loop never shows up as a slow health answer. Every second it asks each
// API node for /api/health and /api/ready and posts what it got.
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';

const { urls, intervalMs } = workerData;
let running = true;
parentPort.on('message', (message) => {
  if (message === 'stop') running = false;
});

async function probe(url, path) {
  const started = performance.now();
  try {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(5000) });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

while (running) {
  const round = Date.now();
  await Promise.all(
    urls.map(async (url) => {
      const [health, ready] = await Promise.all([probe(url, '/api/health'), probe(url, '/api/ready')]);
      parentPort.postMessage({ at: round, url, health, ready });
    }),
  );
  await sleep(Math.max(0, intervalMs - (Date.now() - round)));
}
parentPort.postMessage('stopped');
