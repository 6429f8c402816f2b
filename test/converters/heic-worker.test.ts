/**
 * HEIC decoding in its worker thread: the event loop stays free during a 12 MP decode, aborts stop
 * the running decode (and a later one starts a fresh worker) or drop a queued one, failures keep
 * their codes across the thread boundary, and an idle worker never keeps a process alive.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeHeic, stopHeicWorker } from '../../src/converters/sharp/heic.js';
import { createSharpConverter } from '../../src/converters/sharp/index.js';
import { FileconvError } from '../../src/core/errors.js';
import { withOptionsParsed } from './converter-harness.js';
import { context, expectCode, expectNoLeftovers, fixture, workspace } from './sharp-helpers.js';

const small = readFileSync(fixture('fixture.heic'));
const large = readFileSync(fixture('fixture-12mp.heic')); // 4000x3000
const root = join(import.meta.dirname, '..', '..');

afterAll(() => stopHeicWorker());

describe('the HEIC worker', () => {
  it('keeps the event loop free while decoding 12 MP', async () => {
    await decodeHeic(small, 10_000); // start the worker and load libheif first
    // Timers that fire while the decode runs prove the loop was free: a decode on the main thread
    // is one synchronous call, so its promise settles before any timer gets a turn. (A bound on
    // the loop's delay was tried first; on a loaded CI machine it measured the machine instead.)
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    const image = await decodeHeic(large, 100_000_000);
    clearInterval(ticker);
    expect([image.width, image.height, image.data.length]).toEqual([4000, 3000, 4000 * 3000 * 4]);
    expect(ticks).toBeGreaterThanOrEqual(3);
  });

  it('stops a running decode on abort, and decodes again afterwards', async () => {
    await decodeHeic(small, 10_000);
    const controller = new AbortController();
    const running = decodeHeic(large, 100_000_000, controller.signal);
    setTimeout(() => controller.abort(), 30);
    await expectCode(running, 'CANCELED');
    const again = await decodeHeic(small, 10_000);
    expect([again.width, again.height]).toEqual([64, 48]);
  });

  it('cancels a HEIC conversion mid-decode, leaving nothing behind', async () => {
    await decodeHeic(small, 10_000);
    const ws = await workspace();
    const controller = new AbortController();
    const ctx = context(ws, 'heic', 'png', {
      inputPath: fixture('fixture-12mp.heic'),
      signal: controller.signal,
    });
    const running = withOptionsParsed(createSharpConverter()).convert(ctx);
    setTimeout(() => controller.abort(), 50);
    await expectCode(running, 'CANCELED');
    await expectNoLeftovers(ws);
  });

  it('drops a queued request on abort without disturbing the running one', async () => {
    const controller = new AbortController();
    const first = decodeHeic(large, 100_000_000);
    const queued = decodeHeic(small, 10_000, controller.signal);
    controller.abort(new FileconvError('CONVERSION_TIMEOUT', 'too slow'));
    await expectCode(queued, 'CONVERSION_TIMEOUT');
    expect((await first).width).toBe(4000);
  });

  it('refuses an already aborted signal without sending anything', async () => {
    await expectCode(decodeHeic(small, 10_000, AbortSignal.abort()), 'CANCELED');
  });

  it('keeps error codes and details across the thread boundary', async () => {
    const limit = await expectCode(decodeHeic(large, 1_000_000), 'INPUT_LIMIT_EXCEEDED');
    expect(limit.details).toMatchObject({ width: 4000, height: 3000, maxPixels: 1_000_000 });
    await expectCode(decodeHeic(small.subarray(0, 200), 10_000), 'CORRUPT_INPUT');
    await expectCode(decodeHeic(Buffer.from('not a heic file at all'), 10_000), 'CORRUPT_INPUT');
  });

  it('lets a process exit once its decodes are done', async () => {
    const ws = await workspace();
    const script = join(ws.inputs, 'decode-and-exit.mts');
    const heic = join(root, 'src', 'converters', 'sharp', 'heic.ts');
    await writeFile(
      script,
      `import { readFileSync } from 'node:fs';
       import { decodeHeic } from ${JSON.stringify(heic)};
       const image = await decodeHeic(readFileSync(${JSON.stringify(fixture('fixture.heic'))}), 10_000);
       console.log('decoded', image.width);`,
    );
    const started = Date.now();
    // The idle worker would otherwise hold the process for IDLE_MS (30 s), or forever without it.
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(child.stdout, child.stderr).toContain('decoded 64');
    expect(child.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
