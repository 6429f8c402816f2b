/**
 * How Redis failures map onto the error table, without a server: out of reach, or answering that
 * it cannot serve yet (loading its data after a restart, a replica mid-failover), is UNAVAILABLE
 * with a Retry-After, so workers wait it out; a command Redis refused as wrong stays INTERNAL.
 */
import { describe, expect, it } from 'vitest';
import { redisError, resolveRedisSettings } from '../../src/adapters/redis/connection.js';

const settings = resolveRedisSettings('createRedisJobStore', { url: 'redis://:secret@127.0.0.1:6379' });

/** What ioredis throws for an error reply. */
function replyError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ReplyError' });
}

describe('redisError', () => {
  it.each([
    [
      'connection refused',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }),
    ],
    [
      'retries exhausted',
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
    ['a command timeout', new Error('Command timed out')],
    ['loading after a restart', replyError('LOADING Redis is loading the dataset in memory')],
    ['a replica mid-failover', replyError("READONLY You can't write against a read only replica.")],
    ['a script running long', replyError('BUSY Redis is busy running a script.')],
    ['a cluster reconfiguring', replyError('TRYAGAIN Multiple keys request during rehashing of slot')],
  ])('%s is UNAVAILABLE with a Retry-After', (_, cause) => {
    const error = redisError(settings, 'read job records', cause);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', details: { retryAfterSeconds: 5 } });
    expect(error.message).toContain('could not read job records');
    expect(error.message).not.toContain('secret');
  });

  it('a command Redis refused is INTERNAL: waiting does not fix it', () => {
    const error = redisError(settings, 'update a job record', replyError('ERR unknown command'));
    expect(error.code).toBe('INTERNAL');
    expect(error.details).not.toHaveProperty('retryAfterSeconds');
    expect(redisError(settings, 'x', replyError('ERRLOADING lookalike')).code).toBe('INTERNAL');
  });
});
