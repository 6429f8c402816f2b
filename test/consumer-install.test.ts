/**
 * The package as a user gets it: `npm pack`, then `npm install <tarball>` into two fresh projects,
 * one converting images only and one with every optional engine. Each converts a PNG from
 * CommonJS and from ESM; the CLI answers --version and doctor; a missing engine names the line
 * that installs it. The tarball's contents are checked, attw (types under node16, nodenext and
 * bundler resolution) and publint (package.json) run on it, and the install sizes are printed.
 * Slow (two npm installs, one building better-sqlite3): one file, run once.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageEntries } from '../scripts/package-entries.js';
import { ENGINE_PACKAGES } from '../src/kit/engine-packages.js';
import { assertBuiltPackageFresh, ROOT } from './helpers/built-package.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  peerDependencies: Record<string, string>;
};
const INSTALL_MS = 8 * 60_000;
const work = mkdtempSync(join(tmpdir(), 'fileconv-consumer-'));
let tarball = '';
let packed: string[] = [];

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  timeout = 120_000,
): SpawnSyncReturns<string> {
  // NODE_OPTIONS from the test runner must not reach the user's processes.
  const env = { ...process.env, NODE_OPTIONS: '', npm_config_audit: 'false', npm_config_fund: 'false' };
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout });
}

function ok(result: SpawnSyncReturns<string>): string {
  expect(result.status, `${result.stderr}\n${result.stdout}`.slice(-3000)).toBe(0);
  return result.stdout;
}

/** A fresh project with the tarball (and `extra` packages) installed from the registry. */
function consumer(name: string, extra: readonly string[]): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true }));
  const started = performance.now();
  ok(run('npm', ['install', '--prefer-offline', '--loglevel=error', tarball, ...extra], dir, INSTALL_MS));
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  console.log(`${name} install:`, { seconds, ...installSize(dir) });
  return dir;
}

/** Bytes and packages under node_modules. */
function installSize(dir: string): { megabytes: number; packages: number } {
  const bytes = Number(ok(run('du', ['-sb', 'node_modules'], dir)).split('\t')[0]);
  const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as { packages: object };
  return { megabytes: Math.round(bytes / 1e5) / 10, packages: Object.keys(lock.packages).length - 1 };
}

const CJS = `
const { createEngine } = require('fileconv');
const { createSharpConverter } = require('fileconv/converters/sharp');
const sharp = require('sharp');
createEngine({ converters: [createSharpConverter()] })
  .convertFile(process.argv[2], 'cjs.webp')
  .then(() => sharp('cjs.webp').metadata())
  .then((meta) => console.log(JSON.stringify([meta.format, meta.width, meta.height])));
`;
const ESM = `
import { createEngine } from 'fileconv';
import { createSharpConverter } from 'fileconv/converters/sharp';
import sharp from 'sharp';
await createEngine({ converters: [createSharpConverter()] }).convertFile(process.argv[2], 'esm.webp');
const meta = await sharp('esm.webp').metadata();
console.log(JSON.stringify([meta.format, meta.width, meta.height]));
`;

/**
 * Converts fixture.png from CommonJS, from ESM and with the CLI in `dir`; each must give a 64x48
 * WebP and print no warning (a missing optional engine must stay silent until it is needed).
 */
function convertsPng(dir: string): void {
  writeFileSync(join(dir, 'convert.cjs'), CJS);
  writeFileSync(join(dir, 'convert.mjs'), ESM);
  const png = join(ROOT, 'fixtures/fixture.png');
  for (const script of ['convert.cjs', 'convert.mjs']) {
    const result = run('node', [script, png], dir);
    expect(JSON.parse(ok(result))).toEqual(['webp', 64, 48]);
    expect(result.stderr).toBe('');
  }
  const cli = run('node', ['node_modules/.bin/fileconv', 'convert', png, 'cli.webp', '--quiet'], dir);
  ok(cli);
  expect(cli.stderr).toBe('');
}

interface DoctorReport {
  converters: { name: string; ok: boolean; install?: string }[];
}

function doctor(dir: string): Map<string, { ok: boolean; install?: string }> {
  const result = run('node', ['node_modules/.bin/fileconv', 'doctor', '--json'], dir);
  const report = JSON.parse(result.stdout) as DoctorReport;
  return new Map(report.converters.map((entry) => [entry.name, entry]));
}

beforeAll(() => {
  assertBuiltPackageFresh();
  const result = ok(run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], ROOT));
  const [info] = JSON.parse(result) as {
    filename: string;
    size: number;
    unpackedSize: number;
    files: { path: string }[];
  }[];
  tarball = join(work, info!.filename);
  packed = info!.files.map((file) => file.path);
  console.log(
    `npm pack: ${info!.filename}, ${(info!.size / 1e6).toFixed(1)} MB packed, ${(info!.unpackedSize / 1e6).toFixed(1)} MB unpacked, ${packed.length} files`,
  );
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed package', () => {
  it('holds the build, the CLI, the testing fixtures and the documents, and nothing else', () => {
    expect(packed).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin/fileconv.js']),
    );
    expect(packed).toEqual(
      expect.arrayContaining([
        'dist/src/index.js',
        'dist/src/index.cjs',
        'dist/src/index.d.ts',
        'dist/types-cjs/src/index.d.ts',
      ]),
    );
    // No source maps; no .d.cts, which bundlers tracing the package parse as CommonJS.
    expect(packed.filter((path) => path.endsWith('.map') || path.endsWith('.d.cts'))).toEqual([]);
    // Sources, tests, benchmarks, examples and CI stay home; fixtures/ serves fileconv/testing.
    const allowed =
      /^(dist\/|fixtures\/|bin\/fileconv\.js$|package\.json$|README\.md$|LICENSE$|CHANGELOG\.md$)/;
    expect(packed.filter((path) => !allowed.test(path))).toEqual([]);
  });

  it('has types that resolve under node16 (CommonJS and ESM), nodenext and bundler (attw)', () => {
    // attw skips a subpath pattern ('./converters/*'): every entry is named, the pattern expanded.
    const entrypoints = packageEntries(ROOT).map(({ subpath }) => subpath);
    const output = ok(
      run(
        join(ROOT, 'node_modules/.bin/attw'),
        [tarball, '--profile', 'node16', '--format', 'ascii', '--entrypoints', ...entrypoints],
        work,
      ),
    );
    expect(output).toContain('"fileconv/converters/sharp"');
  });

  it('has a package.json publint finds nothing wrong with', () => {
    const output = ok(run(join(ROOT, 'node_modules/.bin/publint'), ['run', ROOT, '--strict'], ROOT));
    expect(output).not.toMatch(/error|warning/i);
  });
});

describe('an images-only project', () => {
  let dir = '';
  beforeAll(() => {
    dir = consumer('images-only', []);
  }, INSTALL_MS);

  it('converts a PNG from CommonJS and ESM', () => convertsPng(dir));

  it('installs no engine it did not ask for', () => {
    const engines = [
      'pdfjs-dist',
      'exceljs',
      'mammoth',
      '@ffmpeg/core',
      '@aws-sdk/client-s3',
      'bullmq',
      'better-sqlite3',
    ];
    const present = engines.filter((name) => existsSync(join(dir, 'node_modules', name, 'package.json')));
    expect(present).toEqual([]);
  });

  it('answers --version, and doctor names the line that installs each missing engine', () => {
    expect(ok(run('node', ['node_modules/.bin/fileconv', '--version'], dir)).trim()).toBe(pkg.version);
    const report = doctor(dir);
    expect(report.get('sharp')).toMatchObject({ ok: true });
    expect(report.get('pdf')).toMatchObject({ ok: false, install: 'npm install pdfjs-dist pdf-lib' });
    expect(report.get('exceljs')).toMatchObject({ ok: false, install: 'npm install exceljs csv-parse' });
  });

  // Images -> PDF: only pdf-lib writes it. (PDF -> text finds another way where Poppler and
  // Tesseract are installed, as here: pdf -> svg -> png -> txt by OCR.)
  it('refuses a PDF conversion with the install line', () => {
    const result = run(
      'node',
      ['node_modules/.bin/fileconv', 'convert', join(ROOT, 'fixtures/fixture.png'), 'out.pdf'],
      dir,
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('npm install pdfjs-dist pdf-lib');
  });

  // A text step asks for the one library it loads, not the six of every text conversion.
  it('converts txt -> html with nothing more installed, and md -> html asks for marked alone', () => {
    ok(
      run(
        'node',
        ['node_modules/.bin/fileconv', 'convert', join(ROOT, 'fixtures/fixture.txt'), 'out.html'],
        dir,
      ),
    );
    expect(readFileSync(join(dir, 'out.html'), 'utf8')).toContain('<html');
    const md = run(
      'node',
      ['node_modules/.bin/fileconv', 'convert', join(ROOT, 'fixtures/fixture.md'), 'from-md.html'],
      dir,
    );
    expect(md.status).not.toBe(0);
    expect(md.stderr).toContain('run `npm install marked`');
  });
});

describe('a global install (npm install -g fileconv)', () => {
  it('asks for a missing package with `npm install -g`, where a global fileconv finds it', () => {
    const prefix = join(work, 'global');
    ok(
      run(
        'npm',
        ['install', '-g', '--prefix', prefix, '--prefer-offline', '--loglevel=error', tarball],
        work,
        INSTALL_MS,
      ),
    );
    const data = join(work, 'global-run');
    mkdirSync(data);
    const result = run(
      join(prefix, 'bin', 'fileconv'),
      ['convert', join(ROOT, 'fixtures/fixture.json'), 'out.yaml'],
      data,
    );
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('run `npm install -g yaml`');
  });
});

describe('a project with every optional engine', () => {
  let dir = '';
  beforeAll(() => {
    const peers = [...new Set(Object.values(ENGINE_PACKAGES).flat())].map(
      (name) => `${name}@${pkg.peerDependencies[name]}`,
    );
    dir = consumer('full', peers);
  }, INSTALL_MS);

  it('converts a PNG from CommonJS and ESM, and doctor finds every npm engine', () => {
    convertsPng(dir);
    const report = doctor(dir);
    for (const name of ['sharp', 'pdf', 'exceljs', 'mammoth', 'text'])
      expect(report.get(name), name).toMatchObject({ ok: true });
  });

  it('converts a docx to Markdown through its isolated engine', () => {
    ok(
      run(
        'node',
        ['node_modules/.bin/fileconv', 'convert', join(ROOT, 'fixtures/fixture.docx'), 'out.md'],
        dir,
      ),
    );
    expect(readFileSync(join(dir, 'out.md'), 'utf8').length).toBeGreaterThan(20);
  });
});
