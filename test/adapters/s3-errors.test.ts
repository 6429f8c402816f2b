/**
 * How S3 failures map onto the error table, without a server: what passes (an endpoint out of
 * reach, S3 failing or throttling) is UNAVAILABLE, so workers wait it out; what an operator must
 * fix (credentials, bucket, endpoint of another region) stays INTERNAL; a missing object is
 * NOT_FOUND. Shapes are those the AWS SDK v3 throws.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { mapStreamErrors, s3Error } from '../../src/adapters/storage/s3-errors.js';
import { FileconvError } from '../../src/core/errors.js';
import { readAll } from '../../src/testing/index.js';

const where = { action: 'Reading', key: 'uploads/a', bucket: 'b', endpoint: 'http://s3.test:9000' };

/** An SDK service error: a name and the HTTP status S3 answered with. */
function serviceError(name: string, status: number, message = `${name} happened`) {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

/** A Node network error as the SDK's HTTP handler passes it on. */
function networkError(code: string, message = `${code} 127.0.0.1:9000`) {
  return Object.assign(new Error(message), { code, $metadata: { attempts: 3 } });
}

describe('s3Error', () => {
  it.each([
    ['connection refused', networkError('ECONNREFUSED')],
    ['connection reset', networkError('ECONNRESET', 'socket hang up')],
    ['DNS not answering', networkError('EAI_AGAIN')],
    ['a timeout', Object.assign(new Error('Connection timed out after 1000 ms'), { name: 'TimeoutError' })],
    ['S3 503 SlowDown', serviceError('SlowDown', 503, 'Please reduce your request rate.')],
    ['S3 500 InternalError', serviceError('InternalError', 500)],
    ['a bare 502 from a proxy', serviceError('Unknown', 502, 'Bad Gateway')],
    ['429 throttling', serviceError('TooManyRequestsException', 429)],
    ['S3 RequestTimeout', serviceError('RequestTimeout', 400)],
  ])('%s is UNAVAILABLE with a Retry-After', (_, cause) => {
    const error = s3Error(cause, where);
    expect(error).toMatchObject({ code: 'UNAVAILABLE', status: 503 });
    expect(error.details).toMatchObject({ key: 'uploads/a', retryAfterSeconds: 5 });
    expect(error.message).toMatch(/^Reading "uploads\/a" in S3 failed: /);
    expect(error.cause).toBe(cause);
  });

  it('names the endpoint that could not be reached', () => {
    expect(s3Error(networkError('ECONNREFUSED'), where).message).toContain(
      'the endpoint http://s3.test:9000 could not be reached',
    );
  });

  it.each([
    ['refused credentials', serviceError('InvalidAccessKeyId', 403), /check the "credentials" option/],
    ['a missing bucket', serviceError('NoSuchBucket', 404), /the bucket "b" does not exist/],
    ['an endpoint of another region', serviceError('PermanentRedirect', 301), /not the right one/],
    ['anything else S3 refuses', serviceError('InvalidArgument', 400), /InvalidArgument/],
  ])('%s stays INTERNAL: waiting does not fix configuration', (_, cause, message) => {
    const error = s3Error(cause, where);
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toMatch(message);
  });

  it('a missing object is NOT_FOUND, and ours pass through', () => {
    expect(s3Error(serviceError('NoSuchKey', 404), where).code).toBe('NOT_FOUND');
    const ours = new FileconvError('FILE_TOO_LARGE', 'too large');
    expect(s3Error(ours, where)).toBe(ours);
  });
});

describe('mapStreamErrors', () => {
  it('fails with the mapped error when the source breaks off', async () => {
    const source = new PassThrough();
    const mapped = mapStreamErrors(source, (error) => s3Error(error, where));
    source.write('first bytes ');
    setImmediate(() => source.destroy(networkError('ECONNRESET', 'aborted')));
    const failure = await readAll(mapped).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('destroys the source when the reader gives up', async () => {
    const source = new PassThrough();
    const mapped = mapStreamErrors(source, (error) => error as Error);
    source.end('all of it');
    expect((await readAll(mapped)).toString()).toBe('all of it');
    const abandoned = new PassThrough();
    mapStreamErrors(abandoned, (error) => error as Error).destroy();
    await new Promise((resolve) => setImmediate(resolve));
    expect(abandoned.destroyed).toBe(true);
  });
});
