/**
 * Response compression, once for every adapter: JSON answers, the OpenAPI document, the docs
 * page and the web converter's HTML, script and stylesheet are sent br or gzip when the client
 * accepts it and the body is large enough to gain (GET /api/formats: about 1.2 MB as JSON, about
 * 10 KB as br). Downloads never are: they are streams of files that are mostly compressed
 * already, and their Content-Length and byte ranges must stay those of the file. Frameworks
 * that compress by themselves (a compression middleware before the mount) see Content-Encoding
 * set and leave the answer alone.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { HttpAnswer } from './exchange.js';

/** Bodies smaller than this are sent as they are: the headers would eat the gain. */
export const MIN_COMPRESSED_BYTES = 1024;

export type ContentCoding = 'br' | 'gzip';

const COMPRESSIBLE_TYPE =
  /^(?:application\/(?:json|[\w.+-]+\+json|javascript|xml)|text\/(?:html|css|javascript|plain|xml|markdown))\s*(?:;|$)/i;

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** What each coding does to a body; br at quality 5: within a few ms of gzip, a third of its size. */
function encode(body: Uint8Array, coding: ContentCoding): Promise<Buffer> {
  return coding === 'br'
    ? brotliAsync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : gzipAsync(body);
}

/**
 * The coding to send for an Accept-Encoding header: br, else gzip, when the client accepts it
 * with a non-zero weight (`*` accepts both); null for identity.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): ContentCoding | null {
  if (!acceptEncoding) return null;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params
      .map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1])
      .find((value) => value !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(name.trim(), Number.isFinite(weight) ? weight : 0);
  }
  const accepted = (coding: ContentCoding) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  if (accepted('br')) return 'br';
  if (accepted('gzip')) return 'gzip';
  return null;
}

/**
 * Whether an If-None-Match header names `etag` (weak comparison, as for GET), in any coding:
 * `"abc"`, `W/"abc"` and `"abc-br"` all match `"abc"`.
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((tag) => stripCoding(tag.trim().replace(/^W\//, '')) === etag);
}

function stripCoding(tag: string): string {
  return tag.replace(/-(?:br|gzip)"$/, '"');
}

/** A strong ETag per coding: the compressed bytes are another representation of the resource. */
function etagFor(etag: string, coding: ContentCoding): string {
  return etag.startsWith('"') && etag.endsWith('"') ? `${etag.slice(0, -1)}-${coding}"` : etag;
}

function addVary(headers: Record<string, string>): void {
  const vary = headers.vary;
  if (vary === undefined || vary.trim() === '') headers.vary = 'Accept-Encoding';
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.vary = `${vary}, Accept-Encoding`;
}

/** The answer as this client gets it: compressed when that pays, with Vary and a per-coding ETag. */
export async function compressAnswer(
  answer: HttpAnswer,
  acceptEncoding: string | undefined,
): Promise<HttpAnswer> {
  const { headers, body } = answer;
  if (answer.gone || headers['content-encoding'] !== undefined) return answer;
  // A 304 tells the ETag the 200 would have carried: the coded one when the 200 would be coded.
  if (answer.status === 304) {
    const coding = negotiateEncoding(acceptEncoding);
    if (coding && headers.etag && /accept-encoding/i.test(headers.vary ?? '')) {
      headers.etag = etagFor(headers.etag, coding);
    }
    return answer;
  }
  // Streams are downloads (and storage reads): never re-encoded, nor byte ranges.
  if (body === null || (typeof body === 'object' && !(body instanceof Uint8Array))) return answer;
  if (answer.status === 206 || headers['content-range'] !== undefined) return answer;
  if (/no-transform/i.test(headers['cache-control'] ?? '')) return answer;
  if (!COMPRESSIBLE_TYPE.test(headers['content-type'] ?? '')) return answer;
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  if (bytes.byteLength < MIN_COMPRESSED_BYTES) return answer;
  addVary(headers);
  const coding = negotiateEncoding(acceptEncoding);
  if (!coding) return answer;
  const encoded = await encodeCached(body, bytes, coding);
  headers['content-encoding'] = coding;
  headers['content-length'] = String(encoded.byteLength);
  if (headers.etag) headers.etag = etagFor(headers.etag, coding);
  return { ...answer, headers, body: encoded };
}

/** Compressed forms of bodies that are sent again and again (the formats list, the web assets). */
const encodedBodies = new WeakMap<Uint8Array, Partial<Record<ContentCoding, Promise<Buffer>>>>();

/**
 * A Uint8Array body is taken to be a routes' long-lived, never-mutated buffer: its compressed
 * form is kept for as long as the buffer lives. A string body is compressed each time.
 */
function encodeCached(body: string | Uint8Array, bytes: Uint8Array, coding: ContentCoding): Promise<Buffer> {
  if (typeof body === 'string') return encode(bytes, coding);
  let forms = encodedBodies.get(body);
  if (!forms) {
    forms = {};
    encodedBodies.set(body, forms);
  }
  let encoded = forms[coding];
  if (!encoded) {
    encoded = encode(bytes, coding);
    forms[coding] = encoded;
    const entries = forms;
    encoded.catch(() => {
      delete entries[coding];
    });
  }
  return encoded;
}
