/**
 * `npm run bench`: every benchmark compares fileconv against the raw library or binary doing
 * the same work in the same run, and prints medians and the throughput ratio (1.0 = no
 * overhead). The machine is shared and noisy: read ratios, not absolute times.
 * Set BENCH_ROUNDS to change the number of alternating rounds (default 7). The HTTP benchmarks
 * have their own knobs: BENCH_UPLOAD_MB (default 1024), BENCH_UPLOAD_ROUNDS (default 3),
 * BENCH_UPLOAD_DIAG=1, BENCH_JOBS_REQUESTS (default 2000), BENCH_JOBS_FS=0,
 * BENCH_HTTP_IMAGES_MEMORY=0, BENCH_ADAPTERS_REQUESTS (default 3000), BENCH_ADAPTERS_FLOWS (default
 * 150), BENCH_ADAPTERS_ONLY, BENCH_ADAPTERS_CASES, BENCH_JOB_STORE_CREATIONS (default 300),
 * BENCH_QUEUE_JOBS (default 1000; queue needs redis-server);
 * BENCH_ONLY=service,cli,images,http-images,http-upload,http-jobs,http-adapters,job-store,limits,
 * media,office,sheets,queue,chromium picks some. `service` is the whole `fileconv serve` under 8
 * clients (see bench/service.ts for its knobs); `cli` runs the built CLI, which `npm run bench`
 * builds first; `http-adapters` is each HTTP adapter against the same routes bare in its framework;
 * `chromium` takes BENCH_CHROMIUM_DOCUMENTS (default 5), BENCH_CHROMIUM_RENDERS (default 500) and
 * BENCH_CHROMIUM_MAX_JOBS (see bench/chromium.ts).
 */
import { benchHttpImages } from './http-images.js';
import { benchHttpJobs } from './http-jobs.js';
import { benchHttpUpload } from './http-upload.js';
import { benchImages } from './images.js';
import { printTargets } from './stats.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const wanted = (name: string) => !only || only.includes(name);

console.log(`fileconv benchmarks: node ${process.version}, ${rounds} rounds, medians\n`);
if (wanted('service')) {
  await (await import('./service.js')).benchService(rounds);
  console.log();
}
if (wanted('cli')) {
  const cli = await import('./cli-startup.js');
  await cli.benchCliStartup(rounds);
  await cli.benchCliPdfMerge(rounds);
  console.log();
}
if (wanted('images')) await benchImages(rounds);
if (wanted('http-images')) {
  console.log();
  await benchHttpImages(rounds);
}
if (wanted('http-upload')) {
  console.log();
  await benchHttpUpload();
}
if (wanted('http-jobs')) {
  console.log();
  await benchHttpJobs(rounds);
}
if (wanted('http-adapters')) {
  console.log();
  await (await import('./http-adapters.js')).benchHttpAdapters(rounds);
}
if (wanted('job-store')) {
  console.log();
  await (await import('./job-store-writes.js')).benchJobStoreWrites(rounds);
}
if (wanted('limits')) await (await import('./limits.js')).benchLimits(rounds);
if (wanted('media')) await (await import('./media.js')).benchMedia(rounds);
if (wanted('office')) {
  console.log();
  await (await import('./libreoffice.js')).benchLibreOffice(rounds);
}
if (wanted('sheets')) {
  console.log();
  await (await import('./sheets.js')).benchSheets(rounds);
}
if (wanted('queue')) {
  console.log();
  await (await import('./queue.js')).benchQueue(rounds);
}
if (wanted('chromium')) {
  console.log();
  await (await import('./chromium.js')).benchChromium(rounds);
}
printTargets();
