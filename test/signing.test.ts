import { describe, expect, it } from 'vitest';
import { sign, signingKey, verify } from '../src/core/signing.js';

const key = signingKey('k'.repeat(32));
const claims = { purpose: 'upload', id: 'file1', expires: 1_000, bound: ['image/png', 123] };

describe('signing', () => {
  it('accepts its own signature before expiry', () => {
    expect(() => verify(key, claims, sign(key, claims), 999)).not.toThrow();
    expect(() => verify(key, claims, sign(key, claims), 1_000)).not.toThrow();
  });

  it('refuses after expiry with URL_EXPIRED', () => {
    expect(() => verify(key, claims, sign(key, claims), 1_001)).toThrow(
      expect.objectContaining({ code: 'URL_EXPIRED' }),
    );
  });

  it('refuses any changed claim or signature with SIGNATURE_INVALID', () => {
    const signature = sign(key, claims);
    const variants = [
      { ...claims, id: 'file2' },
      { ...claims, purpose: 'download' },
      { ...claims, expires: 2_000 },
      { ...claims, bound: ['image/jpeg', 123] },
      { ...claims, bound: ['image/png', 124] },
      { ...claims, bound: ['image/png'] },
    ];
    for (const variant of variants) {
      expect(() => verify(key, variant, signature, 0)).toThrow(
        expect.objectContaining({ code: 'SIGNATURE_INVALID' }),
      );
    }
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('A') ? 'B' : 'A'}${signature.slice(-1)}`;
    for (const bad of [flipped, '', undefined, 42, signature.slice(1)]) {
      expect(() => verify(key, claims, bad, 0)).toThrow(
        expect.objectContaining({ code: 'SIGNATURE_INVALID' }),
      );
    }
    expect(() => verify(signingKey('x'.repeat(32)), claims, signature, 0)).toThrow(
      expect.objectContaining({ code: 'SIGNATURE_INVALID' }),
    );
  });

  it('keeps parts apart: no two claim lists sign alike', () => {
    expect(sign(key, { purpose: 'a', id: 'b\nc', expires: 1 })).not.toBe(
      sign(key, { purpose: 'a\nb', id: 'c', expires: 1 }),
    );
  });

  it('refuses short secrets', () => {
    expect(() => signingKey('short')).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
  });
});
