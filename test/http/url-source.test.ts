/**
 * Web pages by URL over HTTP: Flow A's job and Flow B's convert take `{ url, targetFormat }`
 * instead of an upload; the page is captured in Chromium on the worker, and the result read
 * back with pdftotext. A job's cookie and header reach the page (its PDF shows them) and its
 * record, once completed, holds neither value. Without the allowance for private addresses, a page on loopback fails
 * its job with UNSAFE_INPUT; an address that answers nothing is URL_UNREACHABLE; a non-http URL
 * is refused at once; a service that turned URL capture off refuses it as unsupported and keeps
 * no URL file.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { locateChromium } from '../../src/converters/chromium/chromium-locate.js';
import { CHROMIUM_INSTALL, createChromiumConverter } from '../../src/converters/chromium/index.js';
import { pdfText } from '../converters/chromium-helpers.js';
import { describeWithEngine } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';
import { call, expectError, pollJob, startServer } from './harness.js';

const AVAILABLE = typeof (await locateChromium(undefined)) === 'string';

describeWithEngine('chromium', AVAILABLE, CHROMIUM_INSTALL, 'web pages by URL over HTTP', () => {
  let site: Server;
  let siteUrl: string;
  beforeAll(async () => {
    site = createServer((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!DOCTYPE html><title>t</title><p>Captured page at ${request.url}</p>
<p>Cookie [${request.headers.cookie ?? ''}] Key [${request.headers['x-api-key'] ?? ''}]</p>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => site.close(resolve));
  });

  const start = (allowPrivateAddresses: boolean, urlCapture = true) =>
    startServer({
      engine: {
        converters: [createChromiumConverter({ allowPrivateAddresses, urlCapture, concurrency: 1 })],
      },
    });

  it('Flow A and Flow B capture a page by URL; the client captures one too', async () => {
    const server = await start(true);
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { url: `${siteUrl}/invoice`, targetFormat: 'pdf', options: { paper: 'Letter' } },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, undefined, 60_000);
    expect(job).toMatchObject({ status: 'completed', sourceFormat: 'url', outputName: '127.0.0.1.pdf' });
    const path = join(await tempDir(), 'a.pdf');
    await writeFile(path, Buffer.from(await (await fetch(job.downloadUrl)).arrayBuffer()));
    expect(await pdfText(path)).toMatch(/Captured page at \/invoice/);

    const converted = await call(server, 'POST', '/api/convert', {
      json: { url: `${siteUrl}/flow-b`, targetFormat: 'pdf' },
    });
    expect(converted.status, converted.text).toBe(200);
    const downloaded = await fetch(`${server.url}/api/download?id=${converted.body.downloadId}`);
    const pathB = join(await tempDir(), 'b.pdf');
    await writeFile(pathB, Buffer.from(await downloaded.arrayBuffer()));
    expect(await pdfText(pathB)).toMatch(/Captured page at \/flow-b/);

    const client = createClient({ baseUrl: server.url });
    const captured = await client.captureUrl(`${siteUrl}/client`, 'pdf');
    const pathC = join(await tempDir(), 'c.pdf');
    await writeFile(pathC, Buffer.from(await new Response(captured.stream).arrayBuffer()));
    expect(await pdfText(pathC)).toMatch(/Captured page at \/client/);
  });

  it("sends a job's cookie and header to the page, and its record keeps neither once done", async () => {
    const server = await start(true);
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: {
        url: `${siteUrl}/account`,
        targetFormat: 'pdf',
        options: {
          cookies: [{ name: 'sid', value: 'cookie-value-1' }],
          extraHttpHeaders: { 'X-Api-Key': 'key-2' },
        },
      },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, undefined, 60_000);
    expect(job.status).toBe('completed');
    const path = join(await tempDir(), 'account.pdf');
    await writeFile(path, Buffer.from(await (await fetch(job.downloadUrl)).arrayBuffer()));
    expect(await pdfText(path)).toMatch(/Cookie \[sid=cookie-value-1\] Key \[key-2\]/);
    const record = JSON.stringify(await server.engine.getJob(created.body.jobId));
    expect(record).not.toContain('cookie-value-1');
    expect(record).not.toContain('key-2');
    expect(record).toContain('"sid"');
  });

  it('refuses loopback without the allowance, an unreachable page, and what is no web URL', async () => {
    const server = await start(false);
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { url: `${siteUrl}/secret`, targetFormat: 'pdf' },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId, undefined, 60_000);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'UNSAFE_INPUT' } });

    // Flow B answers the job's code: an unresolvable host.
    const unreachable = await call(server, 'POST', '/api/convert', {
      json: { url: 'http://no-such-host.invalid/', targetFormat: 'pdf' },
    });
    expectError(unreachable, 422, 'URL_UNREACHABLE');

    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      const refused = await call(server, 'POST', '/api/jobs/create', { json: { url, targetFormat: 'pdf' } });
      expectError(refused, 400, 'INVALID_REQUEST');
    }
  });

  it('a service with URL capture off refuses it as unsupported and keeps no URL file', async () => {
    const server = await start(true, false);
    const refused = await call(server, 'POST', '/api/jobs/create', {
      json: { url: `${siteUrl}/off`, targetFormat: 'pdf' },
    });
    expectError(refused, 422, 'UNSUPPORTED_CONVERSION');
    expect(await server.fileRecords()).toEqual([]);
    expect((await server.storedFiles()).filter((file) => file.startsWith('uploads'))).toEqual([]);
  });
});
