/**
 * What an API client sees while the job store's Redis is out of reach: 503 UNAVAILABLE with
 * Retry-After (back off and come back), not a 500; and normal answers once Redis is back.
 */
import { expect, it } from 'vitest';
import { createRedisJobStore } from '../../src/adapters/jobs/redis.js';
import { describeWithRedis } from '../helpers/redis-server.js';
import { call, startServer } from './harness.js';

describeWithRedis('HTTP while Redis is down', (redis) => {
  it('answers 503 UNAVAILABLE with Retry-After, then works again once Redis is back', async () => {
    const jobs = createRedisJobStore({ url: redis.url, commandTimeoutMs: 1000, onError: () => {} });
    const server = await startServer({ start: false, engine: { jobs } });
    expect((await call(server, 'GET', '/api/jobs/unknown-job')).status).toBe(404);

    await redis.stop();
    const down = await call(server, 'GET', '/api/jobs/unknown-job');
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('UNAVAILABLE');
    expect(down.headers.get('retry-after')).toBe('5');
    // The operator hears of it (onError sees every 5xx); the harness would fail on it otherwise.
    expect(server.serverErrors).toContainEqual(expect.objectContaining({ code: 'UNAVAILABLE' }));
    server.serverErrors.length = 0;

    await redis.start();
    expect((await call(server, 'GET', '/api/jobs/unknown-job')).status).toBe(404);
  });
});
