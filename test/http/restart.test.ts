/**
 * Flow A across a restart: jobs created while no worker runs are kept by the fs storage and
 * fs job store; a new engine and router on the same dirs (same signing secret) pick them up,
 * and the client polls and downloads as if nothing happened.
 */
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { call, expectError, fixture, pollJob, startServer, uploadA } from './harness.js';

it('jobs queued before a restart complete after it and download fine', async () => {
  const first = await startServer({ start: false });
  const inputs = [
    { fixture: 'fixture.png', name: 'one.png', type: 'image/png', source: 'png', target: 'webp' },
    { fixture: 'fixture.jpg', name: 'two.jpg', type: 'image/jpeg', source: 'jpg', target: 'png' },
    { fixture: 'fixture.gif', name: 'three.gif', type: 'image/gif', source: 'gif', target: 'webp' },
  ];
  const jobs: Array<{ jobId: string; target: string }> = [];
  for (const input of inputs) {
    const bytes = await fixture(input.fixture);
    const { fileKey } = await uploadA(first, bytes, input.name, input.type);
    const created = await call(first, 'POST', '/api/jobs/create', {
      json: { fileKey, sourceFormat: input.source, targetFormat: input.target, fileSize: bytes.length },
    });
    expect(created.status, created.text).toBe(200);
    jobs.push({ jobId: created.body.jobId, target: input.target });
  }
  // A grant that was never filled survives too, and can still be used after the restart.
  const late = await fixture('fixture.webp');
  const pending = await call(first, 'POST', '/api/files/get-upload-url', {
    json: { fileName: 'late.webp', fileSize: late.length, contentType: 'image/webp' },
  });
  for (const { jobId } of jobs) {
    expect((await call(first, 'GET', `/api/jobs/${jobId}`)).body.status).toBe('queued');
  }
  await first.stop();
  await expect(fetch(`${first.url}/api/health`)).rejects.toThrow();

  const second = await startServer({ root: first.root });
  for (const { jobId, target } of jobs) {
    const job = await pollJob(second, jobId);
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    expect(job.targetFormat).toBe(target);
    expect(job.downloadUrl.startsWith(`${second.url}/`)).toBe(true);
    const download = await fetch(job.downloadUrl);
    expect(download.status).toBe(200);
    const meta = await sharp(Buffer.from(await download.arrayBuffer())).metadata();
    expect(meta.format).toBe(target);
  }
  // The old server's upload URL points at the old port; the same path on the new server works.
  const oldUrl = new URL(pending.body.uploadUrl);
  const moved = `${second.url}${oldUrl.pathname.slice('/v1'.length)}${oldUrl.search}`;
  const put = await fetch(moved, { method: 'PUT', headers: { 'content-type': 'image/webp' }, body: late });
  expect(put.status).toBe(200);
  const created = await call(second, 'POST', '/api/jobs/create', {
    json: { fileKey: pending.body.fileKey, sourceFormat: 'webp', targetFormat: 'jpg', fileSize: late.length },
  });
  expect((await pollJob(second, created.body.jobId)).status).toBe('completed');
  expectError(await call(second, 'GET', '/api/jobs/00000000-0000-4000-8000-000000000000'), 404, 'NOT_FOUND');
});
