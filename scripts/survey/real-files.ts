/**
 * The real-files survey (`npm run survey`): what a new user gets from the files already on this
 * machine, which nobody here made: LibreOffice's templates and gallery sounds, icons, fonts,
 * calibre's books, docs and sample data that Debian packages ship, and the test files npm
 * packages carry in node_modules. Each is converted to its family's main targets through the
 * engine's in-process API (all default converters, as `fileconv convert` has them), and each
 * result is read back by an independent tool (checks.ts).
 *
 * It is a measurement, not a test: what it finds depends on the machine. It prints one line per
 * conversion that did not give a good result, then a table per family: good, refused as an input
 * problem (a 4xx code: a genuinely broken file should land here), failed (a 5xx code: always a
 * defect) and wrong output (a result the independent tool does not accept: always a defect).
 *
 *   npm run survey -- [--per-ext 3] [--json out.json] [--only ott,wav]
 */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEngine, FileconvError, formatFromExtension, getFormat } from '../../src/index.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { type Verdict, verify } from './checks.js';
import { TARGETS } from './targets.js';

const ROOTS = ['/usr/share', '/usr/lib', join(import.meta.dirname, '..', '..', 'node_modules')];
const MIN_BYTES = 1024;
const MAX_BYTES = 20 * 1024 * 1024;

const { values: flags } = parseArgs({
  options: {
    'per-ext': { type: 'string', default: '3' },
    json: { type: 'string' },
    only: { type: 'string' },
  },
});
const perExtension = Number(flags['per-ext']);
const only = flags.only ? new Set(flags.only.split(',')) : undefined;

/** Every regular file under root whose extension names a format the survey has targets for. */
async function collect(root: string, found: Map<string, string[]>): Promise<void> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const dot = entry.name.lastIndexOf('.');
    if (dot <= 0) continue;
    const extension = entry.name.slice(dot + 1).toLowerCase();
    const format = formatFromExtension(entry.name)?.name;
    if (!format || !TARGETS[format] || (only && !only.has(extension))) continue;
    const list = found.get(extension) ?? [];
    list.push(join(entry.parentPath, entry.name));
    found.set(extension, list);
  }
}

/** Up to n files of sensible size, spread evenly over the sorted list (not the first n of one folder). */
async function pick(paths: string[], n: number): Promise<string[]> {
  const sized: string[] = [];
  for (const path of paths.sort()) {
    const size = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    if (size >= MIN_BYTES && size <= MAX_BYTES) sized.push(path);
  }
  if (sized.length <= n) return sized;
  const step = sized.length / n;
  return Array.from({ length: n }, (_, i) => sized[Math.floor(i * step)] as string);
}

interface Row {
  input: string;
  from: string;
  to: string;
  family: string;
  outcome: 'good' | 'refused' | 'failed' | 'wrong';
  detail: string;
  seconds: number;
}

const found = new Map<string, string[]>();
for (const root of ROOTS) await collect(root, found);
const engine = createEngine({ converters: defaultConverters() });
const outDir = await mkdtemp(join(tmpdir(), 'fileconv-survey-'));
const rows: Row[] = [];
try {
  for (const extension of [...found.keys()].sort()) {
    for (const input of await pick(found.get(extension) ?? [], perExtension)) {
      const from = formatFromExtension(input)?.name ?? extension;
      for (const to of TARGETS[from] ?? []) {
        const output = join(outDir, `${rows.length}.${to}`);
        const started = performance.now();
        let outcome: Row['outcome'];
        let detail = '';
        try {
          await engine.convertFile(input, output, { to, timeoutMs: 120_000 });
          const verdict: Verdict = await verify(output, to);
          outcome = verdict.ok ? 'good' : 'wrong';
          detail = verdict.detail;
        } catch (error) {
          const code = error instanceof FileconvError ? error.code : 'THROWN';
          const status = error instanceof FileconvError ? error.status : 500;
          outcome = status < 500 ? 'refused' : 'failed';
          detail = `${code}: ${error instanceof Error ? error.message.slice(0, 160) : String(error)}`;
        }
        const row: Row = {
          input,
          from,
          to,
          family: getFormat(from)?.family ?? '?',
          outcome,
          detail,
          seconds: (performance.now() - started) / 1000,
        };
        rows.push(row);
        if (outcome !== 'good')
          console.log(`${outcome.padEnd(7)} ${from} -> ${to}  ${input}\n        ${detail}`);
      }
    }
  }
} finally {
  await engine.close();
  await rm(outDir, { recursive: true, force: true });
}

const families = [...new Set(rows.map((row) => row.family))].sort();
console.log('\n| family | conversions | good | refused (4xx) | failed (5xx) | wrong output |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const family of [...families, 'all']) {
  const of = rows.filter((row) => family === 'all' || row.family === family);
  const count = (outcome: Row['outcome']) => of.filter((row) => row.outcome === outcome).length;
  console.log(
    `| ${family} | ${of.length} | ${count('good')} | ${count('refused')} | ${count('failed')} | ${count('wrong')} |`,
  );
}
console.log(`\n${new Set(rows.map((row) => row.input)).size} files, ${rows.length} conversions.`);
if (flags.json) {
  await writeFile(flags.json, JSON.stringify(rows, null, 2));
}
process.exitCode = rows.some((row) => row.outcome === 'failed' || row.outcome === 'wrong') ? 1 : 0;
