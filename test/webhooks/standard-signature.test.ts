/**
 * The Standard Webhooks signature and the one rule mapping a configured secret to keys: the
 * spec's published example signs to its published signature (so the signature does not merely
 * agree with one library), a `whsec_` secret is its decoded bytes, a plain one its UTF-8 bytes
 * (what existing deployments configured), and secrets a receiver would decode differently, or
 * too short to be safe, are refused without echoing them.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { standardWebhookHeaders, webhookSigningKeys } from '../../src/core/standard-webhooks.js';
import { isFileconvError } from '../../src/index.js';

/** The example of the Standard Webhooks specification (spec/standard-webhooks.md, "Signature scheme"). */
const SPEC_EXAMPLE = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

function refusal(secret: string | Uint8Array | undefined): Error {
  try {
    webhookSigningKeys(secret);
  } catch (error) {
    expect(isFileconvError(error, 'INVALID_OPTIONS')).toBe(true);
    return error as Error;
  }
  throw new Error('expected INVALID_OPTIONS');
}

describe('Standard Webhooks signatures', () => {
  it("signs the spec's example to the spec's signature", () => {
    const { secret, id, timestamp, body, signature } = SPEC_EXAMPLE;
    const { standard } = webhookSigningKeys(secret);
    expect(standardWebhookHeaders(standard, { id, timestamp, body })).toEqual({
      'webhook-id': id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': signature,
    });
  });

  it('signs the id and the timestamp with the body', () => {
    const { standard } = webhookSigningKeys(SPEC_EXAMPLE.secret);
    const { id, timestamp, body } = SPEC_EXAMPLE;
    const base = standardWebhookHeaders(standard, { id, timestamp, body })['webhook-signature'];
    const variants = [
      { id: `${id}x`, timestamp, body },
      { id, timestamp: timestamp + 1, body },
      { id, timestamp, body: `${body} ` },
    ];
    for (const message of variants) {
      expect(standardWebhookHeaders(standard, message)['webhook-signature']).not.toBe(base);
    }
  });

  it('refuses a timestamp that is not whole seconds', () => {
    const { standard } = webhookSigningKeys(SPEC_EXAMPLE.secret);
    expect(() => standardWebhookHeaders(standard, { id: 'd', timestamp: 1.5, body: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});

describe('webhook secrets', () => {
  it('keys a whsec_ secret with its decoded bytes, and the deprecated header with the text as before', () => {
    const key = randomBytes(32);
    const secret = `whsec_${key.toString('base64')}`;
    const keys = webhookSigningKeys(secret);
    expect(keys.standard.equals(key)).toBe(true);
    expect(keys.legacy.equals(Buffer.from(secret, 'utf8'))).toBe(true);
  });

  it('accepts the spec smallest key, 24 bytes', () => {
    expect(webhookSigningKeys(SPEC_EXAMPLE.secret).standard).toHaveLength(24);
  });

  it('keys a plain secret, text or bytes, with its own bytes for both headers', () => {
    const text = 'a plain webhook secret of 32 bytes or more: é';
    const keys = webhookSigningKeys(text);
    expect(keys.standard.equals(Buffer.from(text, 'utf8'))).toBe(true);
    expect(keys.legacy.equals(keys.standard)).toBe(true);
    const bytes = randomBytes(32);
    expect(webhookSigningKeys(bytes).standard.equals(bytes)).toBe(true);
  });

  it('refuses a whsec_ secret a strict base64 decoder would read differently, without echoing it', () => {
    const key = randomBytes(32);
    const unpadded = `whsec_${randomBytes(25).toString('base64').replace(/=+$/, '')}`;
    const urlSafe = `whsec_${Buffer.from('\xfb\xff'.repeat(16), 'latin1').toString('base64url')}`;
    const withSpace = `whsec_${key.toString('base64').slice(0, 20)} ${key.toString('base64').slice(20)}`;
    for (const secret of [unpadded, urlSafe, withSpace, 'whsec_not base64 at all, not at all, no!']) {
      const error = refusal(secret);
      expect(error.message).toContain('base64');
      expect(error.message).not.toContain(secret.slice(6, 20));
    }
  });

  it('refuses a whsec_ key under 24 bytes and a plain secret under 32 bytes', () => {
    expect(refusal(`whsec_${randomBytes(23).toString('base64')}`).message).toContain(
      'at least 24 bytes, got 23',
    );
    expect(refusal('thirty-one bytes of plain text!').message).toContain('got 31');
    expect(refusal(randomBytes(31)).message).toContain('got 31');
    expect(refusal(undefined).message).toContain('required');
    expect(refusal('').message).toContain('required');
  });
});
