// A local S3 (s3rver 3.7 from the repo's node_modules) with one bucket, as test/helpers/s3rver.ts starts it.
// usage: node s3rver.mjs <port> <dir> <bucket>
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../package.json', import.meta.url));
const S3rver = require('s3rver');
const [port, directory, bucket] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  silent: true,
  directory,
  configureBuckets: [{ name: bucket }],
});
const { port: bound } = await server.run();
console.log(`s3rver listening on ${bound}`);
const stop = () => server.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
