/**
 * The service's process keeps the platform's own globals. A library loaded in it stays for good,
 * and some bring polyfills that replace built-ins: pdf.js's legacy build (core-js) swaps
 * `JSON.stringify` for one 5x slower on Node 20, under every job record and every answer. So the
 * libraries that need such care load only in the isolated children (kit/isolation), their
 * availability included. Here one engine asks every converter whether it can run and converts a
 * file of every family, then the built-ins are still the ones this process started with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createConverter } from '../src/engine/file-converter.js';
import { defaultConverters } from '../src/preset/converters.js';
import { ENGINES_REQUIRED } from './helpers/engines.js';
import { fixture, tempDir } from './helpers/temp.js';

/** Every own property of the built-ins a library might patch, by path, with its value now. */
function builtIns(): Map<string, unknown> {
  const holders: Record<string, object | undefined> = {
    globalThis,
    JSON,
    Math,
    Object,
    'Object.prototype': Object.prototype,
    Array,
    'Array.prototype': Array.prototype,
    'String.prototype': String.prototype,
    Promise,
    'Promise.prototype': Promise.prototype,
    Map,
    'Map.prototype': Map.prototype,
    Set,
    'Set.prototype': Set.prototype,
    'Uint8Array.prototype': Uint8Array.prototype,
    Uint8Array,
    Reflect,
    Symbol,
    // Iterator exists from Node 22: undefined on 20, where a polyfill would add it.
    Iterator: (globalThis as { Iterator?: object }).Iterator,
  };
  const values = new Map<string, unknown>();
  for (const [path, holder] of Object.entries(holders)) {
    values.set(path, holder);
    if (!holder) continue;
    for (const key of Reflect.ownKeys(holder)) {
      // Symbol-keyed globals are libraries' own registries (graceful-fs's queue, undici's dispatcher).
      if (holder === globalThis && typeof key === 'symbol') continue;
      values.set(`${path}.${String(key)}`, propertyValue(holder, key));
    }
  }
  return values;
}

/**
 * A property's value, or its getter where reading would need an instance (Map.prototype.size).
 * Node defines some globals (AbortController, ...) by a getter that loads them on first read and
 * then turns into the value: those are read, so the first use does not count as a change.
 */
function propertyValue(holder: object, key: string | symbol): unknown {
  const descriptor = Reflect.getOwnPropertyDescriptor(holder, key);
  if (descriptor && 'value' in descriptor) return descriptor.value;
  if (holder === globalThis) return Reflect.get(holder, key);
  return descriptor?.get;
}

/** Paths whose value changed, appeared or went away between two readings. */
function changes(before: Map<string, unknown>, after: Map<string, unknown>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => !Object.is(before.get(path), after.get(path))).sort();
}

/** A file of every family, with a target its own engine makes. */
const SAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['fixture.jpg', 'webp'], // sharp
  ['fixture.pdf', 'png'], // pdf.js
  ['fixture.pdf', 'txt'],
  ['fixture.docx', 'html'], // mammoth
  ['fixture.xlsx', 'csv'], // exceljs
  ['fixture.md', 'html'], // text
  ['fixture.json', 'yaml'], // data
  ['fixture.srt', 'vtt'], // subtitles
  ['fixture.wav', 'mp3'], // ffmpeg
  ['fixture.zip', 'tar'], // archive
  ['fixture.ttf', 'woff2'], // font
  ['fixture.svg', 'pdf'], // vector
  ['fixture.psd', 'png'], // raster
  ['fixture.odt', 'pdf'], // LibreOffice
  ['fixture.html', 'pdf'], // Chromium
  ['fixture.epub', 'mobi'], // calibre
];

// Read before anything below has loaded a converter (the imports above load declarations only).
const natives = builtIns();
// The engine's own temp parent, kept for the whole file (tempDir() dirs go after each test).
const engineTemp = mkdtempSync(join(tmpdir(), 'fileconv-globals-'));
const converter = createConverter({ converters: defaultConverters(), tempDir: engineTemp });
afterAll(async () => {
  await converter.close();
  rmSync(engineTemp, { recursive: true, force: true });
});

describe('the built-ins of a process that converts', () => {
  it('are its own after every converter was asked whether it can run', async () => {
    const statuses = await converter.converters();
    if (ENGINES_REQUIRED) expect(statuses.filter((status) => !status.ok)).toEqual([]);
    expect(changes(natives, builtIns())).toEqual([]);
  }, 180_000);

  it('are its own after a file of every family was converted', async () => {
    const out = await tempDir();
    const failed: string[] = [];
    for (const [name, to] of SAMPLES) {
      try {
        await converter.convertFile(fixture(name), join(out, `${name}.${to}`), { to });
      } catch (error) {
        failed.push(`${name} -> ${to}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (ENGINES_REQUIRED) expect(failed).toEqual([]);
    expect(changes(natives, builtIns())).toEqual([]);
    expect(JSON.stringify).toBe(natives.get('JSON.stringify'));
  }, 600_000);
});
