/**
 * Formats per engine: a host's own format, given to one engine with a converter for it, is
 * detected, planned, converted (directly and as a job) and listed there, over HTTP too; another
 * engine in the same process neither lists nor accepts it. A host format may take no built-in
 * format's name, extension or MIME type, and must say how its files are recognised.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../src/adapters/http/node.js';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { SHARP_REGISTRATION } from '../src/converters/sharp/registration.js';
import {
  type Converter,
  type CustomFormat,
  createConverter,
  createJobEngine,
  FileconvError,
  getFormat,
} from '../src/index.js';
import { listening } from './helpers/listening.js';
import { tempDir } from './helpers/temp.js';

const MAGIC = '#!ACME-NOTES 1\n';

/** A text format of a host's own: a magic first line, then one note per line. */
const NOTES: CustomFormat = {
  name: 'notes',
  family: 'document',
  label: 'Acme notes',
  extensions: ['notes'],
  mimeTypes: ['text/x-acme-notes'],
  magic: MAGIC,
};

/** The host's converter: notes -> txt, each note as a numbered line. */
const notesToText: Converter = {
  name: 'acme-notes',
  edges: [{ from: 'notes', to: 'txt', cost: 1 }],
  available: async () => ({ ok: true }),
  async convert(ctx) {
    const source = await readFile(ctx.inputPath, 'utf8');
    if (!source.startsWith(MAGIC)) throw new FileconvError('CORRUPT_INPUT', 'Not an Acme notes file.');
    const notes = source.slice(MAGIC.length).split('\n').filter(Boolean);
    await writeFile(ctx.outputPath, notes.map((note, i) => `${i + 1}. ${note}\n`).join(''));
    return undefined;
  },
};

const NOTES_FILE = `${MAGIC}buy milk\ncall Ada\n`;
const AS_TEXT = '1. buy milk\n2. call Ada\n';

describe('a format of the host, on one engine', () => {
  it('is detected, planned and converted end to end where it was given', async () => {
    const dir = await tempDir();
    const engine = createConverter({ formats: [NOTES], converters: [notesToText], tempDir: dir });
    const input = join(dir, 'meeting.notes');
    await writeFile(input, NOTES_FILE);
    // The target from the file name, the source from the content (and its name, which agrees).
    const report = await engine.convertFile(input, join(dir, 'meeting.txt'));
    expect(report.path).toEqual(['notes', 'txt']);
    expect(await readFile(join(dir, 'meeting.txt'), 'utf8')).toBe(AS_TEXT);
    // From the bytes alone: the magic line wins over "plain text".
    const converted = await engine.convertBuffer(Buffer.from(NOTES_FILE), { to: 'txt' });
    expect(converted.toString()).toBe(AS_TEXT);
    const formats = await engine.formats();
    expect(formats.find((format) => format.name === 'notes')).toMatchObject({
      label: 'Acme notes',
      extensions: ['notes'],
      mimeTypes: ['text/x-acme-notes'],
      targets: ['txt'],
    });
    // Bytes that are not notes, named .notes: refused before any converter sees them.
    const lying = join(dir, 'lying.notes');
    await writeFile(lying, 'just some text\n');
    await expect(engine.convertFile(lying, join(dir, 'lying.txt'))).rejects.toMatchObject({
      code: 'CONTENT_MISMATCH',
    });
    await engine.close();
  });

  it('is a job format there: created, converted, named and served with its own types', async () => {
    const dir = await tempDir();
    const converter = createConverter({ formats: [NOTES], converters: [notesToText], tempDir: dir });
    const jobs = createJobEngine({
      converter,
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      sweepIntervalMs: 0,
    });
    await jobs.start();
    const file = await jobs.uploadFile({
      owner: 'a',
      fileName: 'meeting.notes',
      body: Buffer.from(NOTES_FILE),
    });
    const job = await jobs.createJob({ owner: 'a', fileId: file.id, targetFormat: 'txt' });
    expect(job).toMatchObject({ sourceFormat: 'notes', path: ['notes', 'txt'], outputName: 'meeting.txt' });
    expect(await jobs.waitForJob(job.id)).toMatchObject({ status: 'completed' });
    const result = await jobs.openResult(job.id, 'a');
    expect(result.contentType).toBe('text/plain');
    expect(await text(result.stream)).toBe(AS_TEXT);

    // GET /api/formats of a service over this engine lists it with its targets.
    const mount = await listening(
      createServer(createNodeHandler(jobs, { signingSecret: 'x'.repeat(32) })),
      '',
    );
    try {
      const body = (await (await fetch(`${mount.url}/api/formats`)).json()) as {
        formats: { name: string; targets: { format: string }[] }[];
      };
      const notes = body.formats.find((format) => format.name === 'notes');
      expect(notes?.targets.map((target) => target.format)).toEqual(['txt']);
    } finally {
      await mount.close();
      await jobs.close();
    }
  });

  it('is unknown to another engine of the same process', async () => {
    const dir = await tempDir();
    const withNotes = createConverter({ formats: [NOTES], converters: [notesToText], tempDir: dir });
    const other = createConverter({ converters: [SHARP_REGISTRATION], tempDir: dir });
    expect((await withNotes.formats()).map((format) => format.name)).toContain('notes');
    expect((await other.formats()).map((format) => format.name)).not.toContain('notes');
    // The built-in registry, which converters use, is untouched.
    expect(getFormat('notes')).toBeUndefined();
    await expect(other.plan('notes', 'txt')).rejects.toMatchObject({ code: 'UNSUPPORTED_CONVERSION' });
    await expect(
      other.convertBuffer(Buffer.from(NOTES_FILE), { from: 'notes', to: 'txt' }),
    ).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    // Its bytes there are plain text, which is no notes.
    const input = join(dir, 'meeting.notes');
    await writeFile(input, NOTES_FILE);
    await expect(other.convertFile(input, join(dir, 'out.txt'), { from: 'notes' })).rejects.toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
    });
    await Promise.all([withNotes.close(), other.close()]);
  });

  it('may take no built-in name, extension or MIME type, and must be recognisable', () => {
    const refused = (format: Partial<CustomFormat>) => () =>
      createConverter({ formats: [{ ...NOTES, ...format } as CustomFormat], converters: [] });
    expect(refused({ name: 'txt' })).toThrow(
      "createConverter: format name 'txt' is taken by the format 'txt'.",
    );
    expect(refused({ extensions: ['md'] })).toThrow("format extension 'md' is taken by the format 'md'.");
    expect(refused({ mimeTypes: ['text/plain'] })).toThrow(
      "format MIME type 'text/plain' is taken by the format 'txt'.",
    );
    expect(refused({ magic: undefined })).toThrow('give magic (the bytes it starts with) or detect(head)');
    expect(refused({ name: 'Notes!' })).toThrow('name must be lowercase');
    expect(refused({ family: 'scroll' as CustomFormat['family'] })).toThrow('family must be one of');
  });
});
