/**
 * The two API flows as a client runs them against a container: Flow A (an upload URL, a PUT, a
 * job, polls) and Flow B (an upload, one convert request), each returning the result's bytes.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { formatFromExtension } from '../../src/core/formats/index.js';

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Flow A: returns the job's id once it completed, and the result's bytes. */
export async function flowA(
  api: string,
  path: string,
  targetFormat: string,
): Promise<{ jobId: string; bytes: Buffer }> {
  const file = await readFile(path);
  const sourceFormat = path.split('.').pop()!;
  // The Content-Type a client sends: the format's own, as the registry names it.
  const contentType = formatFromExtension(sourceFormat)?.mimeTypes[0] ?? 'application/octet-stream';
  const grant = await json<{ uploadUrl: string; fileKey: string }>(
    await post(`${api}/api/files/get-upload-url`, {
      fileName: basename(path),
      fileSize: file.length,
      contentType,
    }),
  );
  const put = await fetch(grant.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: file,
  });
  expect(put.status, await put.clone().text()).toBe(200);
  const { jobId } = await json<{ jobId: string }>(
    await post(`${api}/api/jobs/create`, {
      fileKey: grant.fileKey,
      sourceFormat,
      targetFormat,
      fileSize: file.length,
    }),
  );
  return { jobId, bytes: await completedResult(api, jobId) };
}

/** Polls the job until it completes; returns its result's bytes. */
export async function completedResult(api: string, jobId: string): Promise<Buffer> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const job = await json<{ status: string; downloadUrl?: string; error?: unknown }>(
      await fetch(`${api}/api/jobs/${jobId}`),
    );
    if (job.status === 'completed') {
      const download = await fetch(job.downloadUrl!);
      expect(download.status).toBe(200);
      return Buffer.from(await download.arrayBuffer());
    }
    expect(['queued', 'processing'], JSON.stringify(job)).toContain(job.status);
    await sleep(250);
  }
  throw new Error(`job ${jobId} did not complete in 150 s`);
}

/** Flow B: an upload and a convert; returns the result's bytes. */
export async function flowB(api: string, path: string, targetFormat: string): Promise<Buffer> {
  const form = new FormData();
  form.append('file', new Blob([await readFile(path)]), basename(path));
  const file = await json<{ fileId: string; fileName: string }>(
    await fetch(`${api}/api/upload`, { method: 'POST', body: form }),
  );
  const { downloadId } = await json<{ downloadId: string }>(
    await post(`${api}/api/convert`, { fileId: file.fileId, fileName: file.fileName, targetFormat }),
  );
  const download = await fetch(`${api}/api/download?id=${downloadId}`);
  expect(download.status).toBe(200);
  return Buffer.from(await download.arrayBuffer());
}
