/**
 * `{ "url": ... }` instead of an uploaded file: the page to capture becomes the job's input, a
 * small URL file (an Internet shortcut, the `url` format) stored as the client's upload, so the
 * job, its queue, retries and workers are those of any other conversion. The Chromium converter
 * checks the address after DNS resolution (adapters/converters/browser/web-fetch.ts), on the
 * worker that fetches it; here only the URL's form is checked.
 */

import { urlFileContent } from '../core/formats/index.js';
import type { FileRecord } from '../core/jobs/types.js';
import { uploadRetentionMsOf } from '../core/policy/plans.js';
import type { Call } from './access.js';
import type { RouteContext } from './route-context.js';

/** Whether a request body names a web page to capture (`url`) rather than an uploaded file. */
export function namesUrl(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && 'url' in body && !('fileKey' in body) && !('fileId' in body)
  );
}

/** Stores the URL file of `url` as the caller's upload (named after the host: example.com.url -> example.com.pdf). */
export async function storeUrlSource(ctx: RouteContext, call: Call, url: string): Promise<FileRecord> {
  const content = Buffer.from(urlFileContent(url), 'utf8');
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '') || 'page';
  return ctx.engine.uploadFile({
    owner: call.client.owner,
    fileName: `${host}.url`,
    body: content,
    maxBytes: content.length,
    contentType: 'application/internet-shortcut',
    retentionMs: uploadRetentionMsOf(call.client.plan),
  });
}
