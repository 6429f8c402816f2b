/** The Fastify example, runnable: fileconv keeps its files and database in ./data. */
import { createFileconv } from 'fileconv/preset';
import { createApp } from './app.js';

const port = Number(process.env.PORT ?? 3000);
const fileconv = await createFileconv();
const app = createApp(fileconv.jobs, fileconv.http);
await app.listen({ port, host: '0.0.0.0' });
console.log(`fileconv on http://localhost:${port}/files/api/health`);

// Stop taking requests, give running conversions their grace period, release the data dir.
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => fileconv.close())
      .then(() => process.exit(0));
  });
}
