/**
 * Secret options (issue 31): values a schema marks writeOnly (a URL capture's cookie and header
 * values, a PDF's passwords) are in the JSON Schema as writeOnly, and a job keeps them only until
 * it is over: a completed protect job, a failed one and a canceled conversion read REDACTED in
 * their place, every other option as given.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryJobStore } from '../src/adapters/jobs/memory.js';
import { createMemoryQueue } from '../src/adapters/queue/memory.js';
import { createMemoryStorage } from '../src/adapters/storage/memory.js';
import { chromiumPdfOptionsSchema } from '../src/converters/chromium/index.js';
import { createSharpConverter } from '../src/converters/sharp/index.js';
import { REDACTED, withoutWriteOnly } from '../src/core/secret-options.js';
import { createConverter, createJobEngine } from '../src/index.js';
import { pdfOperations } from '../src/operations/pdf/index.js';
import { protectOptionsSchema } from '../src/operations/pdf/protect.js';
import { fixture } from './helpers/temp.js';

describe('withoutWriteOnly', () => {
  it("replaces a capture's cookie and header values, and nothing else; the input is left as it was", () => {
    const options = {
      paper: 'A4',
      cookies: [{ name: 'session', value: 'abc', domain: 'example.com' }],
      extraHttpHeaders: { 'X-Token': 'tok' },
      userAgent: 'agent',
    };
    const before = structuredClone(options);
    expect(withoutWriteOnly(chromiumPdfOptionsSchema, options)).toEqual({
      paper: 'A4',
      cookies: [{ name: 'session', value: REDACTED, domain: 'example.com' }],
      extraHttpHeaders: { 'X-Token': REDACTED },
      userAgent: 'agent',
    });
    expect(options).toEqual(before);
  });

  it('finds a password marked under a description and a refinement', () => {
    expect(withoutWriteOnly(protectOptionsSchema, { password: 'p', ownerPassword: 'o' })).toEqual({
      password: REDACTED,
      ownerPassword: REDACTED,
    });
  });
});

describe('a finished job keeps no secret option', () => {
  async function engineWith(worker: boolean) {
    const engine = createJobEngine({
      converter: createConverter({ converters: [createSharpConverter()], operations: pdfOperations() }),
      storage: createMemoryStorage(),
      jobs: createMemoryJobStore(),
      queue: createMemoryQueue(),
      worker,
      sweepIntervalMs: 0,
    });
    if (worker) await engine.start();
    const file = await engine.uploadFile({
      owner: 'a',
      fileName: 'a.pdf',
      body: await readFile(fixture('fixture.pdf')),
    });
    return { engine, file };
  }

  it('a completed protect job and a failed one read REDACTED for their passwords', async () => {
    const { engine, file } = await engineWith(true);
    const options = { password: 'open-sesame', permissions: { print: 'none' } };
    const job = await engine.createJob({ owner: 'a', operation: 'protect', fileIds: [file.id], options });
    // Queued, the worker still needs it.
    expect((await engine.getJob(job.id)).options).toMatchObject(options);
    const done = await engine.waitForJob(job.id);
    expect(done.status).toBe('completed');
    expect(done.options).toMatchObject({ password: REDACTED, permissions: { print: 'none', copy: true } });
    expect(JSON.stringify(await engine.getJob(job.id))).not.toContain('open-sesame');
    // unlock with a wrong password fails (PASSWORD_PROTECTED) on the protected result.
    const locked = await engine.uploadFile({
      owner: 'a',
      fileName: 'locked.pdf',
      body: await readAll((await engine.openResult(done.id)).stream),
    });
    const wrong = await engine.createJob({
      owner: 'a',
      operation: 'unlock',
      fileIds: [locked.id],
      options: { password: 'not-it' },
    });
    const failed = await engine.waitForJob(wrong.id);
    expect(failed.status).toBe('failed');
    expect(failed.options).toEqual({ password: REDACTED });
    await engine.close();
  });

  it('a canceled job too', async () => {
    const { engine, file } = await engineWith(false);
    const job = await engine.createJob({
      owner: 'a',
      operation: 'protect',
      fileIds: [file.id],
      options: { password: 'open-sesame' },
    });
    const canceled = await engine.cancelJob(job.id, 'a');
    expect(canceled.options).toEqual({ password: REDACTED });
    expect((await engine.getJob(job.id)).options).toEqual({ password: REDACTED });
    await engine.close();
  });
});

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

// The schema says so too, for the API's description.
it('describes the passwords as writeOnly', () => {
  const json = JSON.stringify(z.toJSONSchema(protectOptionsSchema, { io: 'input', unrepresentable: 'any' }));
  expect(json.match(/"writeOnly":true/g)).toHaveLength(2);
});
