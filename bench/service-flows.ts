/**
 * The client side of the service benchmark: one conversion through Flow B (multipart upload,
 * convert, download) or Flow A (upload grant, PUT, job, a long poll (`?wait=`), signed download),
 * the way an API client does it, over plain node:http.
 *
 * Every conversion comes from its own loopback address (127.x.y.z): the service counts rate
 * limits and the Free plan's daily quota per client IP, as it does in production, and many
 * clients with a few conversions each is what a busy service sees. One client converting
 * thousands of files would be refused by the specification's per-IP limits, as it should be.
 */
import { readFile } from 'node:fs/promises';
import { multipartBody, send, sendJson } from './http-client.js';

export type Flow = 'A' | 'B';

export interface FlowInput {
  path: string;
  name: string;
  type: string;
  sourceFormat: string;
  targetFormat: string;
}

let nextAddress = 0;

/** A loopback address no earlier conversion of this process used: 127.1.0.1, 127.1.0.2, ... */
export function freshLoopbackAddress(): string {
  nextAddress++;
  return `127.${1 + Math.floor(nextAddress / 65_025)}.${Math.floor(nextAddress / 255) % 255}.${1 + (nextAddress % 255)}`;
}

/** One conversion through `flow`; the result is written to `output`. */
export async function convertThroughService(
  flow: Flow,
  url: string,
  input: FlowInput,
  output: string,
): Promise<void> {
  const localAddress = freshLoopbackAddress();
  const bytes = await readFile(input.path);
  if (flow === 'B') await flowB(url, input, bytes, output, localAddress);
  else await flowA(url, input, bytes, output, localAddress);
}

async function flowB(url: string, input: FlowInput, bytes: Buffer, output: string, localAddress: string) {
  const upload = multipartBody(input.name, input.type, bytes);
  const file = await sendJson<{ fileId: string; fileName: string }>(`${url}/api/upload`, {
    method: 'POST',
    headers: { 'content-type': upload.contentType, 'content-length': upload.body.length },
    body: upload.body,
    localAddress,
  });
  const body = JSON.stringify({
    fileId: file.fileId,
    fileName: file.fileName,
    targetFormat: input.targetFormat,
  });
  const job = await sendJson<{ downloadId: string }>(`${url}/api/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    body,
    localAddress,
  });
  await download(`${url}/api/download?id=${encodeURIComponent(job.downloadId)}`, output, localAddress);
}

async function flowA(url: string, input: FlowInput, bytes: Buffer, output: string, localAddress: string) {
  const grantBody = JSON.stringify({ fileName: input.name, fileSize: bytes.length, contentType: input.type });
  const grant = await sendJson<{ uploadUrl: string; fileKey: string }>(`${url}/api/files/get-upload-url`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(grantBody) },
    body: grantBody,
    localAddress,
  });
  const put = await send(grant.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': input.type, 'content-length': bytes.length },
    body: bytes,
    localAddress,
  });
  if (put.status !== 200) throw new Error(`PUT upload: ${put.status} ${put.body}`);
  const jobBody = JSON.stringify({
    fileKey: grant.fileKey,
    sourceFormat: input.sourceFormat,
    targetFormat: input.targetFormat,
    fileSize: bytes.length,
  });
  const job = await sendJson<{ jobId: string }>(`${url}/api/jobs/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(jobBody) },
    body: jobBody,
    localAddress,
  });
  for (;;) {
    // A long poll, as fileconv/client's waitForJob: answered when the job settles.
    const status = await sendJson<{ status: string; downloadUrl: string | null; error: unknown }>(
      `${url}/api/jobs/${job.jobId}?wait=25`,
      { localAddress },
    );
    if (status.status === 'completed' && status.downloadUrl) {
      await download(status.downloadUrl, output, localAddress);
      return;
    }
    if (status.status !== 'queued' && status.status !== 'processing')
      throw new Error(`job ${job.jobId}: ${status.status} ${JSON.stringify(status.error)}`);
  }
}

async function download(url: string, output: string, localAddress: string): Promise<void> {
  const res = await send(url, { saveTo: output, localAddress });
  if (res.status !== 200) throw new Error(`download: ${res.status} ${res.body}`);
}

/** Runs `work` for every item with at most `clients` at once; resolves when all are done. */
export async function withClients<T>(
  items: readonly T[],
  clients: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const client = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(clients, items.length) }, client));
}
