/**
 * A plan's work budgets and upload retention over HTTP: the Free plan's jobs carry its budgets to
 * the worker, which refuses an input past them from its header (422 INPUT_LIMIT_EXCEEDED naming
 * the budget) while a plan with a larger budget converts the same file; a Free upload is kept for
 * the Free retention, a paid one for the engine's hour.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { definePlans } from '../../src/index.js';
import type { AuthRequest } from '../../src/service/service.js';
import { call, expectError, fixture, movableClock, startServer, uploadA, uploadB } from './harness.js';

const START = '2026-03-02T10:00:00.000Z';

/** fixture.gif is 3 frames of 32x24: 2,304 pixels to decode, over a budget of 2,000. */
async function budgetServer() {
  const clock = movableClock(START);
  const server = await startServer({
    clock,
    router: {
      plans: definePlans({ free: { maxWorkPixels: 2_000, uploadRetentionSeconds: 120 } }),
      // x-test-client: pro is a Pro account; anyone else is anonymous Free.
      authenticate: (request: AuthRequest) =>
        request.header('x-test-client') === 'pro' ? { accountId: 'acct-pro', plan: 'pro' } : null,
    },
  });
  return { server, clock };
}

describe('plan work budgets over HTTP', () => {
  it("refuses a Free conversion past the plan's pixel budget and converts it for Pro", async () => {
    const { server } = await budgetServer();
    const gif = await fixture('fixture.gif');

    const free = await uploadB(server, gif, 'anim.gif');
    expect(free.status, free.text).toBe(200);
    const refused = await call(server, 'POST', '/api/convert', {
      json: { fileId: free.body.fileId, fileName: free.body.fileName, targetFormat: 'webp' },
    });
    expectError(refused, 422, 'INPUT_LIMIT_EXCEEDED');
    expect(refused.body.error.message).toMatch(/maxWorkPixels 2000, 2304 asked/);

    const pro = await uploadB(server, gif, 'anim.gif', 'pro');
    const converted = await call(server, 'POST', '/api/convert', {
      client: 'pro',
      json: { fileId: pro.body.fileId, fileName: pro.body.fileName, targetFormat: 'webp' },
    });
    expect(converted.status, converted.text).toBe(200);
    const download = await fetch(`${server.url}/api/download?id=${converted.body.downloadId}`, {
      headers: { 'x-test-client': 'pro' },
    });
    const meta = await sharp(Buffer.from(await download.arrayBuffer())).metadata();
    expect([meta.format, meta.pages, meta.width, meta.height]).toEqual(['webp', 3, 32, 24]);
  });

  it('keeps a Free upload for the Free retention and a Pro upload for the engine default, in both flows', async () => {
    const { server, clock } = await budgetServer();
    const bytes = await fixture('fixture.jpg');
    const now = Date.parse(START);
    const expiry = async (fileId: string) =>
      Date.parse((await server.engine.getFile(fileId)).expiresAt) - now;

    const freeB = await uploadB(server, bytes, 'a.jpg');
    expect(await expiry(freeB.body.fileId)).toBe(120_000);
    const proB = await uploadB(server, bytes, 'a.jpg', 'pro');
    expect(await expiry(proB.body.fileId)).toBe(3_600_000);

    const freeA = await uploadA(server, bytes, 'a.jpg', 'image/jpeg');
    expect(await expiry(freeA.fileId)).toBe(120_000);
    const proA = await uploadA(server, bytes, 'a.jpg', 'image/jpeg', 'pro');
    expect(await expiry(proA.fileId)).toBe(3_600_000);

    // Past the Free retention the sweeper deletes the Free uploads and keeps the Pro ones.
    clock.advance(121_000);
    expect(await server.engine.sweepExpired()).toBe(2);
    for (const gone of [freeB.body.fileId, freeA.fileId]) {
      await expect(server.engine.getFile(gone)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
    for (const kept of [proB.body.fileId, proA.fileId]) {
      expect((await server.engine.getFile(kept)).status).toBe('uploaded');
    }
  });
});
