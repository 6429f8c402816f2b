/**
 * LibreOffice benchmark (BENCH_ONLY=office), on fixtures/fixture.docx -> pdf, in the same run:
 *
 * (a) latency: the engine's convertFile on the warm pool against a cold `soffice --convert-to`
 *     of the same file, in alternating rounds. The cold run gets a fresh profile each time, as
 *     any cold run that may share the machine must (a shared profile loses outputs); a second
 *     cold contender reuses one profile, the best a single cold caller can do.
 * (b) throughput: 12 documents at once (BENCH_OFFICE_DOCUMENTS) through warm pools of size 1 and
 *     2, alternating, in documents/s. On a 2-core machine the ceiling is 2x, less whatever else runs.
 *
 * (c) against one warm soffice over bare UNO, at 1 and 2 clients (bench/libreoffice-uno.ts).
 *
 * Prints medians and ratios (cold/pool time: how many times faster the pool is; size 2/size 1
 * throughput; fileconv/bare UNO throughput). The aims: a pool at least 2.5x faster than cold,
 * >= 0.85 of bare UNO at 1 client and >= 1.3x at 2 (issue 28).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createLibreOfficeConverter } from '../src/converters/libreoffice/index.js';
import { createEngine } from '../src/index.js';
import { benchAgainstBareUno } from './libreoffice-uno.js';
import { alternate } from './stats.js';

const run = promisify(execFile);
const SOFFICE = process.env.SOFFICE_PATH ?? 'soffice';
const INPUT = join(import.meta.dirname, '..', 'fixtures', 'fixture.docx');
const DOCUMENTS = Number(process.env.BENCH_OFFICE_DOCUMENTS ?? 12);

function cold(dir: string, profile: () => string) {
  return () =>
    run(SOFFICE, [
      `-env:UserInstallation=${pathToFileURL(profile()).href}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      join(dir, 'cold-out'),
      INPUT,
    ]);
}

/**
 * Documents per second for `DOCUMENTS` docx -> pdf at once through warm pools of size 1 and 2,
 * batches alternating between them `rounds` times; the median of each.
 */
async function throughput(dir: string, rounds: number): Promise<[number, number]> {
  const pools = [1, 2].map((size) => {
    const converter = createLibreOfficeConverter({ poolSize: size, tempDir: dir });
    return { size, converter, engine: createEngine({ converters: [converter], tempDir: dir }) };
  });
  try {
    const batches = pools.map(({ size, engine }) => async () => {
      const out = await mkdtemp(join(dir, `size-${size}-`));
      await Promise.all(
        Array.from({ length: DOCUMENTS }, (_, i) => engine.convertFile(INPUT, join(out, `${i}.pdf`))),
      );
      await rm(out, { recursive: true });
    });
    // alternate() runs each batch once first: that starts (warms) every worker.
    const medians = await alternate(rounds, batches);
    return [(DOCUMENTS * 1000) / medians[0]!, (DOCUMENTS * 1000) / medians[1]!];
  } finally {
    await Promise.all(pools.map(({ converter }) => converter.close()));
  }
}

export async function benchLibreOffice(rounds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-bench-office-'));
  try {
    const converter = createLibreOfficeConverter({ poolSize: 1, tempDir: dir });
    const availability = await converter.available();
    console.log(`office: fixture.docx -> pdf, ${availability.version ?? availability.reason}`);
    if (!availability.ok || !/warm pool/.test(availability.version ?? '')) {
      console.log(`skipped: the warm pool is not available here (${availability.install ?? ''})`);
      await converter.close();
      return;
    }
    const engine = createEngine({ converters: [converter], tempDir: dir });
    let profiles = 0;
    const fresh = cold(dir, () => join(dir, `profile-${profiles++}`));
    const reused = cold(dir, () => join(dir, 'profile-reused'));
    const pool = () => engine.convertFile(INPUT, join(dir, 'pool.pdf'));
    const [freshMs, reusedMs, poolMs] = await alternate(rounds, [fresh, reused, pool]);
    await converter.close();
    const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;
    console.log(`(a) latency, ${rounds} rounds, medians`);
    console.log(
      `  cold, fresh profile: ${ms(freshMs!)}   pool: ${ms(poolMs!)}   cold/pool time: ${(freshMs! / poolMs!).toFixed(2)}x`,
    );
    console.log(
      `  cold, reused profile: ${ms(reusedMs!)}  pool: ${ms(poolMs!)}   cold/pool time: ${(reusedMs! / poolMs!).toFixed(2)}x`,
    );
    const [one, two] = await throughput(dir, rounds);
    console.log(`(b) throughput, ${DOCUMENTS} documents at once (warm), ${rounds} rounds, medians`);
    console.log(
      `  pool size 1: ${one.toFixed(2)} docs/s   pool size 2: ${two.toFixed(2)} docs/s   size 2/size 1: ${(two / one).toFixed(2)}x`,
    );
    await benchAgainstBareUno(dir, rounds);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
