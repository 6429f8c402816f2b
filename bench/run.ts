/**
 * `npm run bench`: every benchmark compares fileconv against the raw library or binary doing
 * the same work in the same run, and prints medians and the throughput ratio (1.0 = no
 * overhead). The machine is shared and noisy: read ratios, not absolute times.
 * Set BENCH_ROUNDS to change the number of alternating rounds (default 7).
 */
import { benchImages } from './images.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
console.log(`fileconv benchmarks: node ${process.version}, ${rounds} rounds, medians\n`);
await benchImages(rounds);
