/**
 * fileconv's LibreOffice against the least a script can do with one warm LibreOffice over UNO
 * (what unoserver and Gotenberg run): bench/uno-bare.py, one soffice.bin loading each document
 * hidden, storing it as PDF and closing it, no checks at all. Part of BENCH_ONLY=office.
 *
 * `clients` callers each convert their share of BENCH_OFFICE_UNO_DOCUMENTS (default 12)
 * fixture.docx -> pdf one after the other, at 1 and 2 clients: through the script (its one
 * soffice takes one document at a time, as unoserver's does), through createConverter on the
 * default pool (os.availableParallelism() workers) and on a pool of one worker, batches
 * alternating. Prints documents/s and each ratio to the script on one line.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createLibreOfficeConverter } from '../src/converters/libreoffice/index.js';
import { locateSoffice, locateUnoPython } from '../src/converters/libreoffice/libreoffice-locate.js';
import { createConverter } from '../src/index.js';
import { alternate, recordTarget } from './stats.js';

const INPUT = join(import.meta.dirname, '..', 'fixtures', 'fixture.docx');
const DOCUMENTS = Number(process.env.BENCH_OFFICE_UNO_DOCUMENTS ?? 12);

/** The bare UNO script: requests go down its stdin in order, answers come back in the same order. */
class BareUno {
  private readonly waiting: { resolve: () => void; reject: (error: Error) => void }[] = [];
  private readonly ready: Promise<void>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    let started: () => void = () => {};
    this.ready = new Promise((resolve) => {
      started = resolve;
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === 'ready') return started();
      const next = this.waiting.shift();
      if (line === 'ok') next?.resolve();
      else next?.reject(new Error(`bare UNO: ${line}`));
    });
  }

  static async start(python: string, soffice: string, profile: string): Promise<BareUno> {
    const child = spawn(python, [join(import.meta.dirname, 'uno-bare.py'), soffice, profile]);
    child.stderr.resume();
    const uno = new BareUno(child);
    await uno.ready;
    return uno;
  }

  convert(input: string, output: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${input}\t${output}\n`);
    });
  }

  async stop(): Promise<void> {
    const closed = new Promise((resolve) => this.child.once('close', resolve));
    this.child.stdin.end();
    await closed;
  }
}

/** `clients` loops, each converting its share of the documents one after the other. */
function batch(
  dir: string,
  label: string,
  clients: number,
  convert: (input: string, output: string) => Promise<unknown>,
) {
  return async () => {
    const out = await mkdtemp(join(dir, `${label}-`));
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let i = client; i < DOCUMENTS; i += clients) await convert(INPUT, join(out, `${i}.pdf`));
      }),
    );
    await rm(out, { recursive: true });
  };
}

export async function benchAgainstBareUno(dir: string, rounds: number): Promise<void> {
  const soffice = await locateSoffice(undefined);
  const python = typeof soffice === 'string' ? await locateUnoPython(undefined, soffice) : soffice;
  if (typeof soffice !== 'string' || typeof python !== 'string') {
    console.log('(c) skipped: no soffice.bin or no Python with uno');
    return;
  }
  const size = availableParallelism();
  const uno = await BareUno.start(python, soffice, join(dir, 'bare-uno-profile'));
  const sides = [size, 1].map((poolSize) => {
    const office = createLibreOfficeConverter({ poolSize, tempDir: dir });
    return { poolSize, office, converter: createConverter({ converters: [office], tempDir: dir }) };
  });
  try {
    const rate = (ms: number) => (DOCUMENTS * 1000) / ms;
    console.log(
      `(c) against one warm soffice over bare UNO (bench/uno-bare.py), ${DOCUMENTS} documents a batch, ${rounds} rounds, medians`,
    );
    for (const clients of [1, 2]) {
      const [unoMs, poolMs, oneMs] = await alternate(rounds, [
        batch(dir, 'uno', clients, (input, output) => uno.convert(input, output)),
        ...sides.map(({ poolSize, converter }) =>
          batch(dir, `pool-${poolSize}`, clients, (input, output) => converter.convertFile(input, output)),
        ),
      ]);
      const [bare, pool, one] = [rate(unoMs!), rate(poolMs!), rate(oneMs!)];
      console.log(
        `  ${clients} client${clients > 1 ? 's' : ' '}: bare UNO ${bare.toFixed(2)} docs/s   pool of ${size}: ${pool.toFixed(2)} docs/s (ratio ${(pool / bare).toFixed(2)})   pool of 1: ${one.toFixed(2)} docs/s (ratio ${(one / bare).toFixed(2)})`,
      );
      // Issue 28: at one client within 15% of the bare script; at two, the pool's second worker pays.
      recordTarget(
        `docx -> pdf, ${clients} client${clients > 1 ? 's' : ''}, pool of ${size} vs one warm UNO soffice`,
        pool / bare,
        clients === 1 ? 0.85 : 1.3,
      );
    }
  } finally {
    await uno.stop();
    await Promise.all(sides.map(({ office }) => office.close()));
  }
}
