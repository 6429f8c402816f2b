/**
 * s3rver in a process of its own, for the soak's scaled-out deployment: its work stays off the
 * soak's event loop (which times health probes), and the soak stops and restarts it by message
 * ("pause", "resume") as an S3 outage would: connections dropped, the port refusing. Prints
 * `s3rver <endpoint> <bucket>` once it listens.
 */
import { startS3rver } from '../test/helpers/s3rver.js';

const s3 = await startS3rver({ recordRequests: false });
process.on('message', async (message: unknown) => {
  if (message === 'pause') await s3.pause();
  if (message === 'resume') await s3.resume();
  process.send?.(`${String(message)}d`);
});
process.once('disconnect', async () => {
  await s3.stop();
  process.exit(0);
});
process.stdout.write(`s3rver ${s3.endpoint} ${s3.bucket}\n`);
