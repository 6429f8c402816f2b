/**
 * The CLI's lazy assembly plans with edges declared apart from the converters (so that a
 * conversion loads only the engines it needs): they must stay what the converters declare.
 */
import { describe, expect, it } from 'vitest';
import { createEngine } from '../src/index.js';
import { lazyConverter } from '../src/kit/lazy.js';
import { defaultConverters } from '../src/preset/converters.js';
import { copyConverter } from './helpers/fake-converters.js';
import { fixture, tempDir } from './helpers/temp.js';

describe('the CLI assembly', () => {
  it('declares, for each converter, exactly the edges the loaded converter has', async () => {
    for (const converter of defaultConverters()) {
      await converter.available();
      const loaded = (converter as ReturnType<typeof lazyConverter>).loaded();
      expect(loaded?.name).toBe(converter.name);
      expect(converter.edges).toEqual(loaded?.edges);
      await converter.close?.();
    }
  });

  it('converts an image having loaded only the image converter', async () => {
    const converters = defaultConverters() as ReturnType<typeof lazyConverter>[];
    const engine = createEngine({ converters, tempDir: await tempDir() });
    const output = `${await tempDir()}/out.webp`;
    const report = await engine.convertFile(fixture('fixture.jpg'), output);
    expect(report.path).toEqual(['jpg', 'webp']);
    expect(converters.filter((converter) => converter.loaded()).map((converter) => converter.name)).toEqual([
      'sharp',
    ]);
    await engine.close();
  });
});

describe('lazyConverter', () => {
  it('loads once, reports a failed load as unavailable and tries again later', async () => {
    let loads = 0;
    let fail = true;
    const lazy = lazyConverter({
      name: 'copy',
      edges: [{ from: 'png', to: 'jpg', cost: 1 }],
      load: async () => {
        loads++;
        if (fail) throw new Error('Cannot find package');
        return copyConverter('copy', [{ from: 'png', to: 'jpg', cost: 1 }]);
      },
    });
    expect(() => lazy.optionsSchema?.('jpg')).toThrow(/before it was loaded/);
    expect(await lazy.available()).toMatchObject({ ok: false, reason: 'Cannot find package' });
    fail = false;
    expect(await lazy.available()).toEqual({ ok: true });
    await lazy.available();
    expect(loads).toBe(2);
    expect(lazy.optionsSchema?.('jpg')).toBeUndefined();
  });
});
