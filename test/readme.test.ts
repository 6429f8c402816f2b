/**
 * Every code block of README.md is executed here (as docs/testing.md's example is in
 * test/testing/docs-example.test.ts), each twice: a snippet that goes on after an error, cannot
 * be pasted a second time, or no longer matches the code fails this file. Shell blocks run in
 * `bash -euo pipefail` from a copy of the repository's fixtures/ against a real `fileconv serve`
 * (its data dir is ./data there, as for a user who ran `npm start`), with `fileconv` and
 * `npx fileconv` being the built package's bin; TypeScript blocks are type-checked together
 * with `fileconv/...` mapped to the sources, then run with tsx. A block that cannot run here is
 * marked in README.md with the reason (test/helpers/readme-blocks.ts); an unmarked block that
 * is neither sh nor ts fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, extname, join } from 'node:path';
import { detectFormat, formatFromExtension } from 'fileconv';
import { isContentCompatible } from 'fileconv/formats';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LO_AVAILABLE, LO_INSTALL } from './converters/libreoffice-helpers.js';
import { assertBuiltPackageFresh } from './helpers/built-package.js';
import { describeWithEngine } from './helpers/engines.js';
import { listening } from './helpers/listening.js';
import { type ReadmeBlock, readmeBlocks } from './helpers/readme-blocks.js';
import { exited, type ServeProcess, startServeProcess } from './helpers/serve-process.js';
import { readZip } from './helpers/zip.js';

const ROOT = join(import.meta.dirname, '..');
/** The server the README's snippets talk to; replaced by the test's server. */
const README_URL = 'http://localhost:3000';
const RUN_TIMEOUT_MS = 120_000;

const blocks = readmeBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'));
const isRun = (block: ReadmeBlock) =>
  (block.lang === 'sh' || block.lang === 'ts') && (block.mode === undefined || block.mode === 'run');
const isTypeChecked = (block: ReadmeBlock) =>
  block.lang === 'ts' && (isRun(block) || block.mode === 'typecheck');
const tsFileOf = (block: ReadmeBlock) => `readme-line-${block.line}.ts`;
const SNIPPET_FILE = /^readme-line-\d+\.(ts|run\.mts)$/;

/** What the files the snippets write must be (checked whenever a run writes one). */
const EXPECTED_FILES: Record<string, (path: string) => Promise<void>> = {
  'photo.webp': image('webp'),
  'photo.jpg': image('jpeg'),
  'fixture.jpg': image('jpeg'),
  'IMG_0001.webp': image('webp'),
  'small.png': image('png', 600),
  'logo.png': image('png', 1024),
  'contract.pdf': async (path) => expect((await readFile(path)).subarray(0, 5).toString()).toBe('%PDF-'),
  'deck.zip': async (path) => expect([...(await readZip(path)).keys()]).toContain('page-001.png'),
  'export.csv': async (path) => expect(await readFile(path, 'utf8')).toMatch(/^city,population\r?\n/),
};

function image(format: string, width?: number): (path: string) => Promise<void> {
  return async (path) => {
    const metadata = await sharp(path).metadata();
    expect(metadata.format, path).toBe(format);
    if (width !== undefined) expect(metadata.width, path).toBe(width);
  };
}

let server: ServeProcess;
let shDir: string;
let tsDir: string;
let binDir: string;
let typeCheck: Promise<Outcome>;

beforeAll(async () => {
  // `fileconv` here is the built package, as `npx fileconv` runs it for a user; the server and
  // the TypeScript blocks use the sources.
  assertBuiltPackageFresh();
  const tempDir = (prefix: string) => mkdtemp(join(tmpdir(), `fileconv-readme-${prefix}-`));
  [shDir, tsDir, binDir] = await Promise.all([tempDir('sh'), tempDir('ts'), tempDir('bin')]);
  await Promise.all([
    cp(join(ROOT, 'fixtures'), join(shDir, 'fixtures'), { recursive: true }),
    cp(join(ROOT, 'fixtures'), join(tsDir, 'fixtures'), { recursive: true }),
    writeBin(),
    prepareTypeScript(),
  ]);
  typeCheck = run(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsDir, '--pretty', 'false'],
    tsDir,
  );
  // --no-limits: every block runs twice here (both flows and the client's convertFile: 6
  // conversions from one IP), past the Free plan's 5 a day; a user who pastes the two flows twice
  // (4 conversions) stays within it, so the README does not tell anyone to turn limits off.
  server = await startServeProcess(['--data', join(shDir, 'data'), '--no-limits', '--no-log'], snippetEnv());
}, 120_000);

afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await exited(server.child);
  }
  await Promise.all([shDir, tsDir, binDir].map((dir) => dir && rm(dir, { recursive: true, force: true })));
});

/** `fileconv` and `npx fileconv` on PATH: the package's bin, nothing downloaded. */
async function writeBin(): Promise<void> {
  const bin = join(ROOT, 'bin/fileconv.js');
  await writeFile(join(binDir, 'fileconv'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`, {
    mode: 0o755,
  });
  await writeFile(
    join(binDir, 'npx'),
    '#!/bin/sh\n[ "$1" = fileconv ] || { echo "readme test: only npx fileconv is provided, not npx $*" >&2; exit 127; }\n' +
      'shift\nexec fileconv "$@"\n',
    { mode: 0o755 },
  );
}

/** tsDir as a module project whose `fileconv/...` imports are the sources (the repository's tsconfig paths). */
async function prepareTypeScript(): Promise<void> {
  await symlink(join(ROOT, 'node_modules'), join(tsDir, 'node_modules'));
  await writeFile(join(tsDir, 'package.json'), '{ "type": "module" }\n');
  await writeFile(
    join(tsDir, 'tsconfig.json'),
    JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['*.ts'], exclude: [] }),
  );
  for (const block of blocks.filter(isTypeChecked)) {
    const source = [
      `// README.md line ${block.line}: the marker's code before the block, the block, the marker's code after it`,
      block.before,
      `// ---- the block (README.md line ${block.line + 1}) ----`,
      block.code,
      '// ---- after ----',
      block.after,
      '',
    ].join('\n');
    await writeFile(join(tsDir, tsFileOf(block)), source);
  }
}

function snippetEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH}` };
  // The snippets' defaults (./data, anonymous, one machine), whatever the shell running the tests has set.
  for (const name of [
    'FILECONV_DATA',
    'FILECONV_KEY',
    'FILECONV_PLANS',
    'FILECONV_LIMITS',
    'REDIS_URL',
    'S3_BUCKET',
    'PORT',
    'FILECONV_REDIS_URL',
    'FILECONV_S3_BUCKET',
    'FILECONV_PORT',
  ]) {
    delete env[name];
  }
  return env;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env = snippetEnv()): Promise<Outcome> {
  const child: ChildProcess = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function runBlock(block: ReadmeBlock, dir: string, serverUrl: string): Promise<Outcome> {
  if (block.lang === 'ts') {
    // A copy with the server's address (not among the type-checked files, which tsc may be reading).
    return (async () => {
      const file = join(tsDir, tsFileOf(block).replace(/\.ts$/, '.run.mts'));
      const source = await readFile(join(tsDir, tsFileOf(block)), 'utf8');
      await writeFile(file, source.replaceAll(README_URL, serverUrl));
      return run(process.execPath, ['--import', 'tsx', file], dir);
    })();
  }
  const script = [block.before, block.code, block.after].join('\n').replaceAll(README_URL, serverUrl);
  return run('bash', ['-euo', 'pipefail', '-c', script], dir);
}

/** The modification times of the top-level files of `dir`, by name. */
async function fileTimes(dir: string): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile() && !SNIPPET_FILE.test(entry.name)) {
      times.set(entry.name, (await stat(join(dir, entry.name))).mtimeMs);
    }
  }
  return times;
}

/** Checks the top-level files of `dir` the run wrote (new or changed since `before`), and that those the block names were. */
async function checkWrittenFiles(
  block: ReadmeBlock,
  dir: string,
  before: Map<string, number>,
): Promise<void> {
  const written = [...(await fileTimes(dir))]
    .filter(([name, time]) => before.get(name) !== time)
    .map(([name]) => name);
  for (const name of written) {
    const path = join(dir, name);
    const expected = EXPECTED_FILES[name];
    if (expected) {
      await expected(path);
      continue;
    }
    const format = formatFromExtension(extname(name));
    if (!format) continue;
    const head = (await readFile(path)).subarray(0, 64 * 1024);
    expect(isContentCompatible(format.name, await detectFormat(head)), `${name} is not ${format.name}`).toBe(
      true,
    );
  }
  const named = Object.keys(EXPECTED_FILES).filter((name) => block.code.includes(name));
  expect(
    named.filter((name) => !written.includes(name)),
    'files the block names but did not write',
  ).toEqual([]);
}

describe('README.md', () => {
  it('runs, type-checks or marks every code block', () => {
    const unmarked = blocks.filter(
      (block) => !isRun(block) && !isTypeChecked(block) && block.mode === undefined,
    );
    expect(
      unmarked.map((block) => `line ${block.line}: \`\`\`${block.lang}`),
      'blocks neither sh nor ts need a <!-- readme-test: ... --> marker (test/helpers/readme-blocks.ts)',
    ).toEqual([]);
    expect(blocks.filter((block) => block.mode === 'typecheck' && block.lang !== 'ts')).toEqual([]);
    expect(blocks.filter(isRun).length).toBeGreaterThan(5);
  });

  for (const block of blocks.filter(isRun)) {
    // The CLI examples convert office documents: with LibreOffice, as the README says.
    const needs = /\.(docx|pptx)\b/.test(block.code) ? LO_AVAILABLE : true;
    describeWithEngine(
      'LibreOffice',
      needs,
      LO_INSTALL,
      `the ${block.lang} block of line ${block.line}`,
      () => {
        it(
          'runs twice',
          async () => {
            const dir = block.lang === 'sh' ? shDir : tsDir;
            for (const round of [1, 2]) {
              const before = await fileTimes(dir);
              const { code, stdout, stderr } = await runBlock(block, dir, server.url);
              expect(code, `round ${round}, exit code\n--- stdout\n${stdout}\n--- stderr\n${stderr}`).toBe(0);
              await checkWrittenFiles(block, dir, before);
            }
          },
          2 * RUN_TIMEOUT_MS,
        );
      },
    );
  }

  it('stops its HTTP flows at the first error answer, naming the status', async () => {
    const refusing = createServer((_request, response) => {
      response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '3600' });
      response.end('{"error":{"code":"QUOTA_EXCEEDED","message":"5 conversions a day."}}');
    });
    const mount = await listening(refusing, '');
    const dir = await mkdtemp(join(tmpdir(), 'fileconv-readme-refused-'));
    try {
      await symlink(join(ROOT, 'fixtures'), join(dir, 'fixtures'));
      const flows = blocks.filter(
        (block) => block.lang === 'sh' && isRun(block) && block.code.includes(README_URL),
      );
      expect(flows.length).toBeGreaterThanOrEqual(2);
      for (const block of flows) {
        const { code, stdout, stderr } = await runBlock(block, dir, mount.url);
        expect(code, `line ${block.line}: ${stdout}`).not.toBe(0);
        expect(stderr, `line ${block.line}`).toContain('429');
        expect(stdout, `line ${block.line} went on after the error`).toBe('');
      }
      expect(await readdir(dir)).toEqual(['fixtures']);
    } finally {
      await mount.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Last: tsc started in beforeAll and checked while the blocks ran.
  it('type-checks every TypeScript block', async () => {
    const { code, stdout, stderr } = await typeCheck;
    expect(`${stdout}${stderr}`, `in ${tsDir}`).toBe('');
    expect(code).toBe(0);
  }, 120_000);
});
