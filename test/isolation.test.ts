/**
 * Isolated pure-JS conversions (adapters/converters/isolation): a docx whose XML inflates past
 * the child's heap cap fails with INPUT_LIMIT_EXCEEDED while this process's event loop keeps
 * turning and its heap does not grow; a conversion past its work budget is stopped; a real docx
 * still converts, with progress; a canceled job's process is stopped.
 */

import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createMammothConverter } from '../src/converters/mammoth/index.js';
import { MAMMOTH_FACTORY } from '../src/converters/mammoth/registration.js';
import { createTextConverter } from '../src/converters/text/index.js';
import { TEXT_FACTORY } from '../src/converters/text/registration.js';
import { createEngine, isFileconvError } from '../src/index.js';
import { isolateConverter } from '../src/kit/isolation/isolated.js';
import { defaultConverters } from '../src/preset/converters.js';
import { fixture } from './helpers/temp.js';
import { createTempWritingConverter } from './helpers/temp-writing-converter.js';
import { inflatingDocx as makeInflatingDocx } from './hostile/inflating-docx.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-isolation-'));
  dirs.push(dir);
  return dir;
}

/** An inflating docx (test/hostile/inflating-docx.ts) written into `dir`. */
async function inflatingDocx(dir: string, paragraphs: number): Promise<string> {
  const path = join(dir, 'report.docx');
  await writeFile(path, await makeInflatingDocx(paragraphs));
  return path;
}

/** Largest gap between event-loop turns while `work` runs, ms. */
async function worstLoopLag<T>(
  work: Promise<T>,
): Promise<{ result: PromiseSettledResult<T>; lagMs: number }> {
  let worst = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  const [result] = await Promise.allSettled([work]);
  clearInterval(ticker);
  return { result, lagMs: worst };
}

describe('isolated conversions', () => {
  it('a docx that inflates past the heap cap is INPUT_LIMIT_EXCEEDED; the event loop keeps turning', async () => {
    const dir = await workDir();
    // 200,000 paragraphs: 17 MB of XML, under mammoth's part cap, over a 64 MB heap once parsed.
    const input = await inflatingDocx(dir, 200_000);
    const engine = createEngine({
      converters: [isolateConverter(createMammothConverter(), MAMMOTH_FACTORY, { maxHeapMb: 64 })],
      tempDir: dir,
    });
    const heapBefore = process.memoryUsage().heapUsed;
    const { result, lagMs } = await worstLoopLag(engine.convertFile(input, join(dir, 'report.md')));
    expect(result.status).toBe('rejected');
    const error = (result as PromiseRejectedResult).reason;
    expect(isFileconvError(error, 'INPUT_LIMIT_EXCEEDED'), String(error)).toBe(true);
    expect((error as Error).message).toContain('64 MB of memory');
    // The document tree was built in the child's heap, not ours (a fact of this run, with room
    // for the test's own garbage; in-process it took hundreds of MB).
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(48 * 1024 * 1024);
    // The loop stayed responsive: ticks every 10 ms never stalled for seconds.
    expect(lagMs).toBeLessThan(1000);
    // The process that ran out is gone; the next document gets a fresh one and converts.
    await engine.convertFile(fixture('fixture.docx'), join(dir, 'next.md'), { to: 'md' });
    expect(await readFile(join(dir, 'next.md'), 'utf8')).toContain('fileconv fixture');
    await engine.close();
  });

  it('stops a conversion past its work budget', async () => {
    const dir = await workDir();
    const engine = createEngine({
      converters: [isolateConverter(createTextConverter(), TEXT_FACTORY, { budgetMs: 1 })],
      tempDir: dir,
    });
    const failure = await engine
      .convertFile(fixture('fixture.md'), join(dir, 'out.pdf'))
      .catch((error: unknown) => error);
    expect(isFileconvError(failure, 'INPUT_LIMIT_EXCEEDED'), String(failure)).toBe(true);
    expect((failure as Error).message).toContain('of work');
    await engine.close();
  });

  it("a child's temporary files go when it is killed: its TMPDIR is its own, removed when it ends", async () => {
    const dir = await workDir();
    const input = join(dir, 'in.txt');
    const go = join(dir, 'go');
    await writeFile(input, go);
    const factory = {
      module: new URL('./helpers/temp-writing-converter.ts', import.meta.url).href,
      factory: 'createTempWritingConverter',
    };
    const engine = createEngine({
      converters: [isolateConverter(createTempWritingConverter(), factory, { maxHeapMb: 64 })],
      tempDir: dir,
    });
    const leftBehind = async () => {
      const found: string[] = [];
      for (const name of await readdir(tmpdir())) {
        if (name.endsWith('-left-behind')) found.push(name);
        if (!name.startsWith(`fileconv-isolated-${process.pid}-`)) continue;
        for (const child of await readdir(join(tmpdir(), name)).catch(() => [])) {
          const files = await readdir(join(tmpdir(), name, child)).catch(() => []);
          // (tsx, which reads the sources in tests, keeps its cache there too)
          found.push(
            ...files
              .filter((file) => file.endsWith('-left-behind'))
              .map((file) => `${name}/${child}/${file}`),
          );
        }
      }
      return found;
    };
    const converting = engine.convertFile(input, join(dir, 'out.md')).catch((error: unknown) => error);
    // While it works, the file is in the child's own dir, not in the shared TMPDIR.
    await expect
      .poll(leftBehind, { timeout: 20_000, interval: 50 })
      .toEqual([
        expect.stringMatching(
          new RegExp(`^fileconv-isolated-${process.pid}-[^/]+/child-\\d+/tmp-\\d+-left-behind$`),
        ),
      ]);
    await writeFile(go, '');
    expect(isFileconvError(await converting, 'INPUT_LIMIT_EXCEEDED')).toBe(true);
    // Out of heap, it ran no cleanup of its own; it ran no cleanup of its own; its dir goes with it.
    await expect.poll(leftBehind, { timeout: 2000, interval: 50 }).toEqual([]);
    await engine.close();
  });

  it('converts a real docx in a child process, with the same output as in-process', async () => {
    const dir = await workDir();
    const isolated = createEngine({ converters: defaultConverters(), tempDir: dir });
    const direct = createEngine({ converters: [createMammothConverter()], tempDir: dir });
    const progress: number[] = [];
    await isolated.convertFile(fixture('fixture.docx'), join(dir, 'a.md'), {
      to: 'md',
      onProgress: (fraction) => progress.push(fraction),
    });
    await direct.convertFile(fixture('fixture.docx'), join(dir, 'b.md'), { to: 'md' });
    const [a, b] = await Promise.all([
      readFile(join(dir, 'a.md'), 'utf8'),
      readFile(join(dir, 'b.md'), 'utf8'),
    ]);
    expect(a.length).toBeGreaterThan(20);
    expect(a).toBe(b);
    expect(progress.at(-1)).toBe(1);
    await Promise.all([isolated.close(), direct.close()]);
  });

  it('stops the process of a canceled job', async () => {
    const dir = await workDir();
    const input = await inflatingDocx(dir, 200_000);
    const engine = createEngine({
      converters: [isolateConverter(createMammothConverter(), MAMMOTH_FACTORY, { maxHeapMb: 2048 })],
      tempDir: dir,
    });
    const controller = new AbortController();
    const converting = engine.convertFile(input, join(dir, 'out.md'), { signal: controller.signal });
    await sleep(300);
    controller.abort();
    const failure = await converting.catch((error: unknown) => error);
    expect(isFileconvError(failure, 'CANCELED'), String(failure)).toBe(true);
    await engine.close();
  });
});
