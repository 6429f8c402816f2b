import { describe, expect, it } from 'vitest';
import { FileconvError, signWebhook, verifyWebhookSignature } from '../../src/index.js';

const SECRET = 'whsec-test-0123456789abcdef0123456789abcdef';
const BODY = '{"id":"d1","type":"job.completed","job":{"jobId":"j1","status":"completed"}}';
const NOW = 1_790_000_000;

function refusal(run: () => unknown): FileconvError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FileconvError);
    expect((error as FileconvError).code).toBe('SIGNATURE_INVALID');
    return error as FileconvError;
  }
  throw new Error('expected SIGNATURE_INVALID');
}

describe('webhook signatures', () => {
  it('accepts its own signature over the raw body, as a string or as bytes', () => {
    const header = signWebhook(SECRET, BODY, NOW);
    expect(header).toMatch(/^t=1790000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature({ secret: SECRET, body: BODY, header, now: NOW })).toBe(true);
    expect(
      verifyWebhookSignature({
        secret: SECRET,
        body: new TextEncoder().encode(BODY),
        header,
        now: NOW + 299,
      }),
    ).toBe(true);
  });

  it('accepts any matching v1 among several (secret rotation)', () => {
    const other = signWebhook('another-secret-0123456789abcdef0123456789', BODY, NOW).split(',')[1];
    const header = `${signWebhook(SECRET, BODY, NOW)},${other}`;
    expect(verifyWebhookSignature({ secret: SECRET, body: BODY, header, now: NOW })).toBe(true);
  });

  it('refuses a forged body', () => {
    const header = signWebhook(SECRET, BODY, NOW);
    const forged = BODY.replace('completed', 'failed');
    const error = refusal(() => verifyWebhookSignature({ secret: SECRET, body: forged, header, now: NOW }));
    expect(error.details).toEqual({ reason: 'mismatch' });
  });

  it('refuses the wrong secret', () => {
    const header = signWebhook('not-the-secret-0123456789abcdef0123456789', BODY, NOW);
    const error = refusal(() => verifyWebhookSignature({ secret: SECRET, body: BODY, header, now: NOW }));
    expect(error.details).toEqual({ reason: 'mismatch' });
  });

  it('refuses a timestamp moved to pass the tolerance (it is signed too)', () => {
    const [, v1] = signWebhook(SECRET, BODY, NOW - 3600).split(',');
    const header = `t=${NOW},${v1}`;
    refusal(() => verifyWebhookSignature({ secret: SECRET, body: BODY, header, now: NOW }));
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['no timestamp', `v1=${'a'.repeat(64)}`],
    ['no signature', `t=${NOW}`],
    ['short signature', `t=${NOW},v1=abcd`],
    ['not hex', `t=${NOW},v1=${'z'.repeat(64)}`],
    ['garbage', 'Bearer something'],
    ['huge', `t=${NOW},${'x'.repeat(5000)}`],
  ])('refuses a malformed header (%s)', (_name, header) => {
    const error = refusal(() => verifyWebhookSignature({ secret: SECRET, body: BODY, header, now: NOW }));
    expect(error.details).toEqual({ reason: 'malformed' });
  });

  it('refuses a replayed old delivery, and one from too far in the future', () => {
    const old = signWebhook(SECRET, BODY, NOW - 301);
    const error = refusal(() =>
      verifyWebhookSignature({ secret: SECRET, body: BODY, header: old, now: NOW }),
    );
    expect(error.details).toMatchObject({ reason: 'expired', toleranceSeconds: 300 });
    const future = signWebhook(SECRET, BODY, NOW + 301);
    refusal(() => verifyWebhookSignature({ secret: SECRET, body: BODY, header: future, now: NOW }));
    // A receiver may widen the window.
    expect(
      verifyWebhookSignature({ secret: SECRET, body: BODY, header: old, now: NOW, toleranceSeconds: 600 }),
    ).toBe(true);
  });
});
