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
  /**
   * The whole page as text, for a source that serves its document and nothing else: a tab
   * already showing a page at the address open() gives is handed it with setContent, without a
   * request (page-render.ts). Undefined where the bytes must reach the browser as served.
   */
  readonly inline?: string | undefined;
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

/** The first 4 KiB, where a page declares its charset. */
function head(html: Buffer): string {
  return html.subarray(0, 4096).toString('latin1');
}

/** Whether the bytes declare their charset early on; otherwise the page is served as UTF-8. */
export function htmlContentType(html: Buffer): string {
  return /<meta[^>]+charset/i.test(head(html)) ? 'text/html' : 'text/html; charset=utf-8';
}

/**
 * The page as the text the browser decodes from it, served as htmlContentType() says: UTF-8
 * when it carries a UTF-8 byte order mark, declares no charset or declares UTF-8 in its first
 * <meta> (the browser skips comments too). Undefined where the browser would decode otherwise
 * (a UTF-16 byte order mark, another charset): only serving the bytes renders those right.
 */
function utf8Text(html: Buffer): string | undefined {
  const utf8Mark = html[0] === 0xef && html[1] === 0xbb && html[2] === 0xbf;
  if (!utf8Mark) {
    if ((html[0] === 0xfe && html[1] === 0xff) || (html[0] === 0xff && html[1] === 0xfe)) return undefined;
    if (htmlContentType(html) !== 'text/html; charset=utf-8') {
      const declared = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(
        head(html).replace(/<!--[\s\S]*?-->/g, ''),
      );
      const charset = declared?.[1]?.toLowerCase();
      if (charset !== 'utf-8' && charset !== 'utf8') return undefined;
    }
  }
  // Drops the byte order mark and replaces malformed bytes with U+FFFD, as the browser does.
  return new TextDecoder('utf-8').decode(html);
}

/**
 * The uploaded page alone, at DOCUMENT_URL, to the page's first navigation only: an <iframe>
 * pointing at it, or the page reloading itself, gets nothing, and so does every other request.
 */
export function documentSource(html: Buffer): PageSource {
  return {
    inline: utf8Text(html),
    open: async () => DOCUMENT_URL,
    async respond(_request, document) {
      if (!document) return REFUSED;
      return { status: 200, headers: { 'content-type': htmlContentType(html) }, body: html };
    },
    close() {},
  };
}
