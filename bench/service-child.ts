/**
 * `fileconv serve` as the service benchmark runs it: the same startService a user's `npm start`
 * runs (every converter, the embedded stores in a fresh data dir, rate limits and quotas, two
 * conversions at once), in its own process on 127.0.0.1 and an OS-chosen port, without the
 * access log. Says its URL over IPC; stops gracefully on 'stop' or when the parent goes away.
 */
import { startService } from '../bin/commands/serve.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: service-child.ts <data dir>');
const service = await startService({ data: dataDir, port: 0, host: '0.0.0.0', log: false, web: false });
const port = (service.server.address() as { port: number }).port;
const stop = async () => {
  await service.stop();
  process.exit(0);
};
process.on('message', (message: { type?: string }) => {
  if (message.type === 'stop') void stop();
  // CPU time of the whole process (every thread: the event loop, libvips, the thread pool), µs.
  if (message.type === 'cpu') process.send?.({ type: 'cpu', ...process.cpuUsage() });
});
process.on('disconnect', () => void stop());
process.send?.({ type: 'ready', port });
