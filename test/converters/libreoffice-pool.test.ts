/**
 * The warm pool under load and when things go wrong: 20 documents at once on two workers with no
 * output lost, workers replaced after N conversions and past a memory bound, a hung conversion
 * killed by the hard timeout while a concurrent one succeeds, abort of a running and of a queued
 * conversion (a deadline in the queue told apart as the pool's), a crashed worker replaced (its conversion retried cold once), and close() leaving
 * no process and no file behind.
 * The slow document is a ~5 MB text file: LibreOffice needs well over 20 s to lay it out.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, onTestFinished, vi } from 'vitest';
import {
  createLibreOfficeConverter,
  type LibreOfficeConverter,
} from '../../src/converters/libreoffice/index.js';
import { describeWithEngine } from '../helpers/engines.js';
import { withOptionsParsed } from './converter-harness.js';
import {
  context,
  contextFor,
  DOC_TEXT,
  expectCode,
  expectNoLeftovers,
  isAlive,
  LO_AVAILABLE,
  LO_INSTALL,
  readPdf,
  workspace,
} from './libreoffice-helpers.js';

let dir: string;
let slowText: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fileconv-lo-pool-'));
  slowText = join(dir, 'slow.txt');
  const line = `${'The quick brown fox jumps over the lazy dog. '.repeat(20)}\n`;
  await writeFile(slowText, line.repeat(5_500));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A converter whose spawned pids are recorded, closed after the test's checks. */
function pooled(options: Parameters<typeof createLibreOfficeConverter>[0] = {}) {
  const pids = { soffice: [] as number[], bridge: [] as number[] };
  const converter = withOptionsParsed(
    createLibreOfficeConverter({
      poolSize: 1,
      ...options,
      onSpawn: (pid, kind) => {
        pids[kind].push(pid);
        options.onSpawn?.(pid, kind);
      },
    }),
  );
  return { converter, pids };
}

async function closeAndCheck(converter: LibreOfficeConverter, pids: { soffice: number[]; bridge: number[] }) {
  await converter.close();
  for (const pid of [...pids.soffice, ...pids.bridge])
    expect(isAlive(pid), `pid ${pid} outlived close()`).toBe(false);
}

const slowContext = (
  ws: Awaited<ReturnType<typeof workspace>>,
  extra: Partial<Parameters<typeof context>[3]> = {},
) => context(ws, 'txt', 'pdf', { inputPath: slowText, outputPath: join(ws.outputs, 'slow.pdf'), ...extra });

describeWithEngine('LibreOffice', LO_AVAILABLE, LO_INSTALL, 'libreoffice pool', () => {
  it('converts 20 documents at once on two workers with every output complete', async () => {
    const { converter, pids } = pooled({ poolSize: 2 });
    const ws = await workspace();
    const kinds = [
      ['docx', 'pdf'],
      ['odt', 'pdf'],
      ['pptx', 'pdf'],
      ['xlsx', 'pdf'],
      ['docx', 'txt'],
    ] as const;
    const jobs = Array.from({ length: 20 }, (_, i) => {
      const [from, to] = kinds[i % kinds.length]!;
      return context(ws, from, to, { outputPath: join(ws.outputs, `out-${i}.${to}`) });
    });
    await Promise.all(jobs.map((ctx) => converter.convert(ctx)));
    for (const ctx of jobs) {
      const text =
        ctx.to === 'pdf' ? (await readPdf(ctx.outputPath)).text : await readFile(ctx.outputPath, 'utf8');
      const expected =
        ctx.from === 'xlsx' ? ['alpha', 'Москва'] : ctx.from === 'pptx' ? ['Second slide'] : DOC_TEXT;
      for (const line of expected) expect(text, `${ctx.from} -> ${ctx.to}`).toContain(line);
    }
    expect(await readdir(ws.outputs)).toHaveLength(20);
    expect(await readdir(ws.temp)).toEqual([]);
    expect(converter.stats()).toMatchObject({ started: 2, lost: 0, killed: 0 });
    expect(
      converter
        .stats()
        ?.workers.map((w) => w.conversions)
        .reduce((a, b) => a + b),
    ).toBe(20);
    await closeAndCheck(converter, pids);
  });

  it('replaces a worker after maxConversionsPerWorker conversions', async () => {
    const { converter, pids } = pooled({ maxConversionsPerWorker: 2 });
    const ws = await workspace();
    for (let i = 0; i < 5; i++)
      await converter.convert(context(ws, 'rtf', 'txt', { outputPath: join(ws.outputs, `${i}.txt`) }));
    expect(converter.stats()).toMatchObject({ started: 3, recycled: 2 });
    expect(new Set(pids.soffice).size).toBe(3);
    await closeAndCheck(converter, pids);
  });

  it('replaces a worker whose soffice grows past maxWorkerRssBytes', async () => {
    const { converter, pids } = pooled({ maxWorkerRssBytes: 1024 * 1024 }); // soffice uses ~200 MB
    const ws = await workspace();
    for (let i = 0; i < 3; i++)
      await converter.convert(context(ws, 'rtf', 'txt', { outputPath: join(ws.outputs, `${i}.txt`) }));
    expect(converter.stats()).toMatchObject({ started: 3, recycled: 3 });
    await closeAndCheck(converter, pids);
  });

  it('kills a conversion past the hard timeout, failing only that job, and replaces the worker', async () => {
    const { converter, pids } = pooled({ poolSize: 2, timeoutMs: 5_000 });
    const ws = await workspace();
    // Both workers warm first: the timeout covers conversions, not start-up. (The second starts
    // once the first is up while a conversion still waits; the first may take that one itself.)
    await Promise.all(
      [0, 1].map((i) =>
        converter.convert(context(ws, 'rtf', 'txt', { outputPath: join(ws.outputs, `w${i}.txt`) })),
      ),
    );
    await expect.poll(() => converter.stats()?.processes, { timeout: 60_000 }).toBe(2);
    const slow = expectCode(converter.convert(slowContext(ws)), 'CONVERSION_TIMEOUT');
    const quick = context(ws, 'docx', 'pdf');
    await converter.convert(quick);
    expect((await readPdf(quick.outputPath)).text).toContain(DOC_TEXT[1]);
    const error = await slow;
    expect(error.message).toMatch(/5000 ms/);
    expect(converter.stats()).toMatchObject({ killed: 1, started: 2 });
    expect(pids.soffice.filter(isAlive)).toHaveLength(1);
    // The warm one takes the next conversion; two at once bring the pool back to two workers.
    await Promise.all(
      ['after-1', 'after-2'].map((name) =>
        converter.convert(context(ws, 'rtf', 'txt', { outputPath: join(ws.outputs, `${name}.txt`) })),
      ),
    );
    await expect.poll(() => converter.stats()?.started, { timeout: 60_000 }).toBe(3);
    expect(await readdir(ws.temp)).toEqual([]);
    await closeAndCheck(converter, pids);
  });

  it('kills the soffice of an aborted running conversion and leaves nothing behind', async () => {
    const { converter, pids } = pooled();
    const ws = await workspace();
    const controller = new AbortController();
    let running: number | undefined;
    const ctx = slowContext(ws, {
      signal: controller.signal,
      onProgress: (fraction) => {
        if (fraction !== 0.1) return;
        running = converter.stats()?.workers[0]?.sofficePid;
        setTimeout(() => controller.abort(), 300);
      },
    });
    await expectCode(converter.convert(ctx), 'CANCELED');
    expect(running).toBeGreaterThan(0);
    expect(isAlive(running!)).toBe(false);
    await expectNoLeftovers(ws);
    await converter.convert(context(ws, 'rtf', 'txt', { outputPath: join(ws.outputs, 'after.txt') }));
    await closeAndCheck(converter, pids);
  });

  it('drops an aborted conversion from the queue while the running one goes on', async () => {
    const { converter, pids } = pooled();
    const ws = await workspace();
    const first = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = expectCode(
      converter.convert(slowContext(ws, { signal: first.signal, onProgress: (f) => f === 0.1 && started() })),
      'CANCELED',
    );
    await running;
    const second = new AbortController();
    const progress: number[] = [];
    const queued = expectCode(
      converter.convert(context(ws, 'docx', 'pdf', { signal: second.signal, progress })),
      'CANCELED',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(converter.stats()?.queued).toBe(1);
    second.abort();
    await queued;
    expect(converter.stats()?.queued).toBe(0);
    expect(progress).not.toContain(0.1); // no worker ever took it
    expect(converter.stats()?.workers[0]?.busy).toBe(true);
    first.abort();
    await slow;
    await expectNoLeftovers(ws);
    await closeAndCheck(converter, pids);
  });

  it("a deadline that passes in the queue is the busy pool's doing, one that passes while converting is the input's", async () => {
    const { converter, pids } = pooled();
    const ws = await workspace();
    // What AbortSignal.timeout aborts with: the engine's deadline for a conversion.
    const deadline = () => new DOMException('The operation timed out.', 'TimeoutError');
    const first = new AbortController();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = expectCode(
      converter.convert(slowContext(ws, { signal: first.signal, onProgress: (f) => f === 0.1 && started() })),
      'CONVERSION_TIMEOUT',
    );
    await running;
    const second = new AbortController();
    const queued = expectCode(
      converter.convert(context(ws, 'docx', 'pdf', { signal: second.signal })),
      'CONVERSION_TIMEOUT',
    );
    // Waited for, not slept on: the document's checks before it queues take longer on a busy machine.
    await vi.waitFor(() => expect(converter.stats()?.queued).toBe(1), { timeout: 20_000, interval: 50 });
    second.abort(deadline());
    expect((await queued).details).toEqual({ fault: 'service' });
    first.abort(deadline());
    expect((await slow).details?.fault).toBeUndefined();
    await expectNoLeftovers(ws);
    await closeAndCheck(converter, pids);
  });

  it('fails only the conversion whose soffice crashes warm and cold, and replaces a worker that died idle', async () => {
    // The cold retry's soffice is killed too: a document that crashes both ways fails.
    let crashed = false;
    const { converter, pids } = pooled({
      onSpawn: (pid, kind) => {
        if (crashed && kind === 'soffice') setTimeout(() => killIfAlive(pid), 300);
      },
    });
    const ws = await workspace();
    const slow = converter.convert(
      slowContext(ws, {
        onProgress: (f) => {
          if (f !== 0.1) return;
          const pid = converter.stats()?.workers[0]?.sofficePid;
          setTimeout(() => {
            crashed = true;
            if (pid) killIfAlive(pid);
          }, 300);
        },
      }),
    );
    const error = await expectCode(slow, 'CONVERSION_FAILED');
    expect(error.message).toMatch(/LibreOffice wrote no result|LibreOffice stopped/);
    expect(error.details).toMatchObject({ mode: 'cold' });
    crashed = false;
    const ok = contextFor(ws, context(ws, 'docx', 'pdf').inputPath, 'docx', 'pdf', 'ok.pdf');
    await converter.convert(ok);
    // Killed between conversions: the next one gets a fresh worker.
    process.kill(converter.stats()!.workers[0]!.sofficePid, 'SIGKILL');
    while (converter.stats()?.workers.length) await new Promise((resolve) => setTimeout(resolve, 50));
    await converter.convert(contextFor(ws, ok.inputPath, 'docx', 'pdf', 'ok2.pdf'));
    expect(converter.stats()).toMatchObject({ started: 3, lost: 2 });
    await closeAndCheck(converter, pids);
    // Three warm starts and a cold one: more than the default minute on a loaded machine.
  }, 120_000);

  it('close() cancels queued and running conversions, ends every process and removes its temp dir', async () => {
    const ws = await workspace();
    const poolDir = await mkdtemp(join(dir, 'pool-'));
    const { converter, pids } = pooled({ tempDir: poolDir });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const slow = expectCode(
      converter.convert(slowContext(ws, { onProgress: (f) => f === 0.1 && started() })),
      'CANCELED',
    );
    await running;
    const queued = expectCode(converter.convert(context(ws, 'docx', 'pdf')), 'CANCELED');
    expect(await readdir(poolDir)).toHaveLength(1); // fileconv-office-*: profiles live there
    await closeAndCheck(converter, pids);
    await slow;
    await queued;
    expect(await readdir(poolDir)).toEqual([]);
    await expectCode(converter.convert(context(ws, 'docx', 'pdf')), 'CANCELED');
    await expectNoLeftovers(ws);
  });

  it("removes the profile roots of pools whose process died (SIGKILL), never a live process's", async () => {
    const ws = await workspace();
    const poolDir = await mkdtemp(join(dir, 'sweep-'));
    const deadPid = spawnSync('true').pid; // exited: its pid runs nothing now (until reused)
    const dead = join(poolDir, `fileconv-office-${deadPid}-abc123`);
    await mkdir(join(dead, 'worker-0', 'profile'), { recursive: true });
    await writeFile(join(dead, 'worker-0', 'profile', 'registrymodifications.xcu'), 'x');
    // Another live process's root (not this process's own, which the sweep skips without asking).
    const live = spawn('sleep', ['60'], { stdio: 'ignore' });
    onTestFinished(() => {
      live.kill();
    });
    const kept = [`fileconv-office-${live.pid}-live01`, 'fileconv-office-other', 'unrelated-1-x'];
    for (const name of kept) await mkdir(join(poolDir, name));
    const { converter, pids } = pooled({ tempDir: poolDir });
    const ctx = context(ws, 'docx', 'pdf');
    await converter.convert(ctx);
    expect((await readPdf(ctx.outputPath)).text).toContain(DOC_TEXT[0]);
    const names = await readdir(poolDir);
    expect(names).not.toContain(`fileconv-office-${deadPid}-abc123`);
    const own = names.filter((name) => !kept.includes(name));
    expect(own).toHaveLength(1);
    expect(own[0]).toMatch(new RegExp(`^fileconv-office-${process.pid}-\\w{6}$`));
    await closeAndCheck(converter, pids);
    expect((await readdir(poolDir)).sort()).toEqual([...kept].sort());
  });
});

/** SIGKILL `pid` unless it has already exited (a process started after the crash may be gone by then). */
function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}
