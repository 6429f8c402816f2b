/** The Hono example, runnable on Node: fileconv keeps its files and database in ./data. */
import { serve } from '@hono/node-server';
import { createFileconv } from 'fileconv/preset';
import { createApp } from './app.js';

const port = Number(process.env.PORT ?? 3000);
const fileconv = await createFileconv();
const server = serve({ fetch: createApp(fileconv.jobs, fileconv.http).fetch, port }, () => {
  console.log(`fileconv on http://localhost:${port}/files/api/health`);
});

// Stop taking requests, give running conversions their grace period, release the data dir.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    void fileconv.close().then(() => process.exit(0));
  });
}
