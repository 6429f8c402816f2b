/** `fileconv doctor`'s allocator advice (src/kit/malloc-settings.ts): said only where it applies. */
import { describe, expect, it } from 'vitest';
import { glibcVersion, MALLOC_SETTINGS, mallocAdvice } from '../src/kit/malloc-settings.js';

describe('mallocAdvice', () => {
  it.runIf(glibcVersion() !== undefined)('names the missing variable on glibc', () => {
    expect(mallocAdvice({})).toContain('MALLOC_MMAP_THRESHOLD_=131072');
  });

  it('is silent when the settings, a tunable or another allocator are in place', () => {
    expect(mallocAdvice({ ...MALLOC_SETTINGS })).toBeUndefined();
    expect(mallocAdvice({ GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=262144' })).toBeUndefined();
    expect(mallocAdvice({ LD_PRELOAD: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2' })).toBeUndefined();
  });
});
