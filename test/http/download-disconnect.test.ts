/**
 * A client that goes away in the middle of a download is not a server failure: nothing is
 * reported to the host's onError, and the server goes on serving.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { call, pollJob, startServer, uploadA } from './harness.js';

it('a client leaving mid-download is not reported as a server error', async () => {
  const server = await startServer();
  try {
    // Noise does not compress: a ~10 MB result, far more than socket buffers hold, so the
    // download is still streaming when the client leaves.
    const noise = { type: 'gaussian' as const, mean: 128, sigma: 60 };
    const bytes = await sharp({
      create: { width: 1800, height: 1800, channels: 3, background: '#000', noise },
    })
      .png({ compressionLevel: 1 })
      .toBuffer();
    const { fileKey } = await uploadA(server, bytes, 'noise.png', 'image/png');
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { fileKey, sourceFormat: 'png', targetFormat: 'tiff', fileSize: bytes.length },
    });
    expect(created.status, created.text).toBe(200);
    const job = await pollJob(server, created.body.jobId);
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    expect(job.outputSize).toBeGreaterThan(8 * 1024 * 1024);

    const leaving = new AbortController();
    const response = await fetch(job.downloadUrl, { signal: leaving.signal });
    expect(response.status).toBe(200);
    leaving.abort(); // the client goes away after the headers
    await sleep(300);
    expect(server.serverErrors.map((error) => (error as { code?: string }).code ?? String(error))).toEqual(
      [],
    );
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
  } finally {
    await server.stop();
  }
});
