/**
 * The sharp converter when its engines are missing: available() says what to install, and a
 * conversion fails with ENGINE_UNAVAILABLE naming the package. A file of its own, because it
 * mocks the modules away for every import in this file.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withOptionsParsed } from './converter-harness.js';
import { context, workspace } from './sharp-helpers.js';

afterEach(() => {
  vi.doUnmock('heic-decode');
  vi.doUnmock('node:module');
});

/** The rejection of `promise`. Compared by code: resetModules gives the adapter its own FileconvError class. */
async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message?: string }> {
  return promise.then(
    () => ({}),
    (error: { code?: string; message?: string }) => error,
  );
}

/**
 * sharp is loaded with require (kit/libraries/sharp.ts), which vi.doMock does not reach: its
 * failure is simulated where the require is made.
 */
function failRequire(id: string, error: () => Error): void {
  vi.doMock('node:module', async (importOriginal) => {
    const real = await importOriginal<typeof import('node:module')>();
    const createRequire = (from: string | URL) => {
      const require = real.createRequire(from);
      const failing = (request: string) => {
        if (request === id) throw error();
        return require(request);
      };
      return Object.assign(failing, require);
    };
    return { ...real, default: { ...real, createRequire }, createRequire };
  });
}

describe('missing engines', () => {
  it('reports sharp as missing, with the install command', async () => {
    vi.resetModules();
    failRequire('sharp', () =>
      Object.assign(new Error("Cannot find module 'sharp'"), { code: 'MODULE_NOT_FOUND' }),
    );
    const { createSharpConverter } = await import('../../src/converters/sharp/index.js');
    const converter = withOptionsParsed(createSharpConverter());
    expect(converter.edges.length).toBeGreaterThan(0); // declaring edges needs no engine
    const availability = await converter.available();
    expect(availability).toMatchObject({ ok: false, install: 'npm install sharp' });
    expect(availability.reason).toContain("'sharp'");
    const ws = await workspace();
    const error = await rejection(converter.convert(context(ws, 'png', 'jpg')));
    expect(error.code).toBe('ENGINE_UNAVAILABLE');
    expect(error.message).toContain('npm install sharp');
  });

  it('reports an installed sharp whose platform binary is missing, with the command that brings it', async () => {
    vi.resetModules();
    failRequire('sharp', () => new Error('Could not load the "sharp" module using the linux-x64 runtime'));
    const { createSharpConverter } = await import('../../src/converters/sharp/index.js');
    const availability = await createSharpConverter().available();
    expect(availability).toMatchObject({ ok: false, install: 'npm install --include=optional sharp' });
    expect(availability.reason).toMatch(/sharp is installed but failed to load on \w+-\w+/);
  });

  it('reports heic-decode as missing unless HEIC input is disabled', async () => {
    vi.resetModules();
    // The converter only resolves heic-decode on this thread (the worker loads it), so "missing"
    // is simulated where resolution happens.
    vi.doMock('node:module', async (importOriginal) => {
      const real = await importOriginal<typeof import('node:module')>();
      const createRequire = (from: string | URL) => {
        const require = real.createRequire(from);
        const resolve = (id: string) => {
          if (id === 'heic-decode') {
            throw Object.assign(new Error("Cannot find module 'heic-decode'"), { code: 'MODULE_NOT_FOUND' });
          }
          return require.resolve(id);
        };
        return Object.assign(require, { resolve });
      };
      return { ...real, default: { ...real, createRequire }, createRequire };
    });
    const { createSharpConverter } = await import('../../src/converters/sharp/index.js');
    expect(await createSharpConverter().available()).toMatchObject({
      ok: false,
      install: 'npm install heic-decode',
    });
    expect((await createSharpConverter({ heic: false }).available()).ok).toBe(true);
    const ws = await workspace();
    const error = await rejection(
      withOptionsParsed(createSharpConverter()).convert(context(ws, 'heic', 'jpg')),
    );
    expect(error).toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringContaining('heic-decode'),
    });
  });

  it('reports a heic-decode that fails to load where it is loaded (the worker side)', async () => {
    vi.resetModules();
    vi.doMock('heic-decode', () => {
      throw Object.assign(new Error("Cannot find package 'heic-decode'"), { code: 'ERR_MODULE_NOT_FOUND' });
    });
    const { decodeHeicInThisThread } = await import('../../src/converters/sharp/heic-wasm.js');
    const error = await rejection(decodeHeicInThisThread(new Uint8Array(16), 1000));
    expect(error).toMatchObject({
      code: 'ENGINE_UNAVAILABLE',
      message: expect.stringContaining('heic-decode'),
    });
  });
});
