/**
 * The assembly plans with what each converter's registration declares, apart from the converter
 * (so that a conversion loads only the engines it needs, and an API node none): the declaration
 * must stay what the loaded converter has, and the engine loads a registration only on need.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConverterRegistration } from '../src/core/ports/index.js';
import { createConverterSet } from '../src/engine/converter-set.js';
import { createEngine } from '../src/index.js';
import { defaultConverters } from '../src/preset/converters.js';
import { copyConverter } from './helpers/fake-converters.js';
import { fixture, tempDir } from './helpers/temp.js';

/** `registrations`, each recording its name in `loaded` when the engine loads it. */
function recordingLoads(registrations: ConverterRegistration[], loaded: string[]): ConverterRegistration[] {
  return registrations.map((registration) => ({
    ...registration,
    load: async () => {
      loaded.push(registration.name);
      return registration.load();
    },
  }));
}

describe('the CLI assembly', () => {
  it('declares, for each converter, exactly the name, edges and options the loaded converter has', async () => {
    for (const registration of defaultConverters()) {
      const loaded = await registration.load();
      expect(loaded.name).toBe(registration.name);
      expect(registration.edges).toEqual(loaded.edges);
      for (const to of new Set(registration.edges.map((edge) => edge.to))) {
        // The very schema object: written once, in the registration.
        expect(loaded.optionsSchema?.(to), `${registration.name} -> ${to}`).toBe(
          registration.optionsSchema?.(to),
        );
      }
      await loaded.close?.();
    }
  });

  it('converts an image having loaded only the image converter', async () => {
    const loaded: string[] = [];
    const engine = createEngine({
      converters: recordingLoads(defaultConverters(), loaded),
      tempDir: await tempDir(),
    });
    const output = `${await tempDir()}/out.webp`;
    const report = await engine.convertFile(fixture('fixture.jpg'), output);
    expect(report.path).toEqual(['jpg', 'webp']);
    expect(loaded).toEqual(['sharp']);
    await engine.close();
  });

  it('converts in the child processes of each isolated converter (each names the module its child imports)', async () => {
    const dir = await tempDir();
    const engine = createEngine({ converters: defaultConverters(), tempDir: dir });
    const cases = [
      ['fixture.pdf', 'txt'],
      ['fixture.xlsx', 'csv'],
      ['fixture.docx', 'md'],
      ['fixture.md', 'html'],
      ['fixture.json', 'yaml'],
    ] as const;
    for (const [input, to] of cases) {
      const report = await engine.convertFile(fixture(input), join(dir, `${input}.${to}`), { to });
      expect(report.outputSize, input).toBeGreaterThan(0);
    }
    const isolated = (await engine.converters()).map((converter) => converter.name);
    expect(isolated).toEqual(expect.arrayContaining(['pdf', 'exceljs', 'mammoth', 'text', 'data']));
    await engine.close();
  });
});

describe("the engine's registrations", () => {
  it('load once, report a failed load as unavailable and load again later', async () => {
    let loads = 0;
    let fail = true;
    const registration: ConverterRegistration = {
      name: 'copy',
      edges: [{ from: 'png', to: 'jpg', cost: 1 }],
      load: async () => {
        loads++;
        if (fail) throw new Error('Cannot find package');
        return copyConverter('copy', [{ from: 'png', to: 'jpg', cost: 1 }]);
      },
    };
    const set = createConverterSet([registration], 'test');
    // Declared without loading: nothing to validate options with, nothing loaded.
    expect(set.declarationOf('copy', true)?.optionsSchema?.('jpg')).toBeUndefined();
    expect(loads).toBe(0);
    expect(await set.availability('copy')).toMatchObject({ ok: false, reason: 'Cannot find package' });
    fail = false;
    const converter = await set.load('copy');
    expect(await converter.available()).toEqual({ ok: true });
    await set.load('copy');
    expect(loads).toBe(2);
    expect(set.declarationOf('copy', false)?.optionsSchema?.('jpg')).toBeUndefined();
  });

  it('take a ready converter as its own registration', async () => {
    const copy = copyConverter('copy', [{ from: 'png', to: 'jpg', cost: 1 }]);
    const set = createConverterSet([copy], 'test');
    expect(set.registrations.map((r) => [r.name, r.edges])).toEqual([['copy', copy.edges]]);
    expect(await set.load('copy')).toBe(copy);
    expect(await set.availability('copy')).toEqual({ ok: true });
  });

  it('refuse two converters of one name', () => {
    const copy = copyConverter('copy', [{ from: 'png', to: 'jpg', cost: 1 }]);
    expect(() => createConverterSet([copy, copy], 'createEngine')).toThrow(
      'createEngine: two converters are named copy.',
    );
  });
});
