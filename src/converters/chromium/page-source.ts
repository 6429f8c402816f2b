/**
 * Where a rendered page's bytes come from. The browser of the Chromium converter fetches nothing
 * itself: every request of a job's context is intercepted (page-render.ts) and answered by the
 * job's PageSource, or refused. Three sources: the uploaded document alone (html, md; this file),
 * a zipped site (zip-site.ts) and the web, through checked requests from Node (web-source.ts).
 */
import type { Request } from 'playwright-core';
import type { FileconvError } from '../../core/errors.js';

/** The synthetic origin uploaded pages are served from (.invalid never resolves, RFC 2606). */
export const SITE_ORIGIN = 'http://fileconv.invalid';

/** The address an uploaded document is served at. */
export const DOCUMENT_URL = `${SITE_ORIGIN}/index.html`;

/** What a request is answered with (route.fulfill's shape). */
export interface SourceResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A refused request. `error` says why where that is worth more than "refused" (the web source's
 * blocked address or unreachable host): a refused navigation of the page itself fails the job
 * with it.
 */
export interface SourceRefusal {
  refused: true;
  error?: FileconvError;
}

export interface PageSource {
  /** Gets ready (the web source fetches the page here) and says which URL the page opens at. */
  open(signal: AbortSignal): Promise<string>;
  /**
   * The answer to one request of the page. `document` is true for the page's own first
   * navigation (to the URL open() gave). A FileconvError thrown fails the job with it.
   */
  respond(request: Request, document: boolean): Promise<SourceResponse | SourceRefusal>;
  /** Releases what open() took (the zip's file). Called once the job's context is closed. */
  close(): void;
}

export const REFUSED: SourceRefusal = { refused: true };

/** Whether the bytes declare their charset early on; otherwise the page is served as UTF-8. */
export function htmlContentType(html: Buffer): string {
  return /<meta[^>]+charset/i.test(html.subarray(0, 4096).toString('latin1'))
    ? 'text/html'
    : 'text/html; charset=utf-8';
}

/**
 * The uploaded page alone, at DOCUMENT_URL, to the page's first navigation only: an <iframe>
 * pointing at it, or the page reloading itself, gets nothing, and so does every other request.
 */
export function documentSource(html: Buffer): PageSource {
  return {
    open: async () => DOCUMENT_URL,
    async respond(_request, document) {
      if (!document) return REFUSED;
      return { status: 200, headers: { 'content-type': htmlContentType(html) }, body: html };
    },
    close() {},
  };
}
