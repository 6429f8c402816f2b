/**
 * The converter index `fileconv convert` plans with (src/preset/converter-index.ts) is
 * defaultConverters() without the imports: the same converters in the same order with the same
 * edges, options and packaging, each one's registration module giving the converter
 * defaultConverters() has, and a conversion planned the same way through either.
 */
import { describe, expect, it } from 'vitest';
import { declaredConverters } from '../scripts/converter-index.js';
import { createConverter } from '../src/engine/file-converter.js';
import { DECLARED_CONVERTERS } from '../src/preset/converter-edges.generated.js';
import { lazyDefaultConverters, REGISTRATION_MODULES } from '../src/preset/converter-index.js';
import { defaultConverters } from '../src/preset/converters.js';

describe('the converter index', () => {
  it('holds what defaultConverters() declares (else run `npx tsx scripts/converter-index.ts`)', () => {
    expect(DECLARED_CONVERTERS).toEqual(declaredConverters());
  });

  it("imports each converter's registration by name, the one defaultConverters() lists", async () => {
    const registrations = defaultConverters();
    expect(Object.keys(REGISTRATION_MODULES)).toEqual(registrations.map((registration) => registration.name));
    for (const registration of registrations) {
      const imported = await REGISTRATION_MODULES[registration.name]!();
      expect(imported.name).toBe(registration.name);
      expect(imported.edges).toEqual(registration.edges);
    }
    // The PDF converter's text target is read by OCR around it, as in defaultConverters().
    const pdf = await REGISTRATION_MODULES.pdf!();
    const listed = registrations.find((registration) => registration.name === 'pdf')!;
    expect(pdf.optionsSchema?.('txt')).toBe(listed.optionsSchema?.('txt'));
  });

  it('plans the same chains, with the same options, as defaultConverters()', async () => {
    const eager = createConverter({ converters: defaultConverters() });
    const lazy = createConverter({ converters: lazyDefaultConverters() });
    try {
      for (const [from, to, options] of [
        ['jpg', 'webp', { quality: 50 }],
        ['png', 'avif', {}],
        ['svg', 'png', {}],
        ['csv', 'json', {}],
        ['srt', 'vtt', {}],
      ] as const) {
        const planned = await eager.plan(from, to, options);
        expect(await lazy.plan(from, to, options)).toEqual(planned);
      }
      await expect(lazy.plan('jpg', 'webp', { quality: 500 })).rejects.toMatchObject({
        code: 'INVALID_OPTIONS',
      });
    } finally {
      await Promise.all([eager.close(), lazy.close()]);
    }
  });
});
