/**
 * `fileconv serve --metrics-port`: the service's own metrics on a port of their own, off the
 * public API: after a Flow B conversion and a refused request, the scrape shows both.
 */
import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { startService } from '../../bin/commands/serve.js';
import { fixture, tempDir } from '../helpers/temp.js';
import { parseExposition, sampleValue } from './exposition.js';

it('serves Prometheus metrics on --metrics-port, not on the API port', async () => {
  const service = await startService({
    port: 0,
    host: '127.0.0.1',
    data: await tempDir(),
    log: false,
    web: false,
    metricsPort: 0,
  });
  try {
    expect(service.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const form = new FormData();
    form.set('file', new Blob([await readFile(fixture('fixture.jpg'))]), 'photo.jpg');
    const uploaded = (await (
      await fetch(`${service.url}/api/upload`, { method: 'POST', body: form })
    ).json()) as {
      fileId: string;
    };
    const converted = await fetch(`${service.url}/api/convert`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fileId: uploaded.fileId, fileName: 'photo.jpg', targetFormat: 'webp' }),
    });
    expect(converted.status).toBe(200);
    expect((await fetch(`${service.url}/api/jobs/no-such-job`)).status).toBe(404);
    // Not on the public API.
    expect((await fetch(`${service.url}/metrics`)).status).toBe(404);

    const scraped = await fetch(service.metricsUrl!);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const exposition = parseExposition(await scraped.text());
    const settled = exposition.samples.filter(
      (sample) => sample.name === 'fileconv_jobs_settled_total' && sample.labels.status === 'completed',
    );
    expect(settled.reduce((sum, sample) => sum + sample.value, 0)).toBe(1);
    expect(sampleValue(exposition, 'fileconv_http_rejected_requests_total', { code: 'NOT_FOUND' })).toBe(1);
  } finally {
    await service.stop();
  }
});
