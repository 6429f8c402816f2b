/**
 * A web page captured from its URL (the 'url' format) as a PageSource. open() fetches the page
 * from Node (web-fetch.ts: only http(s), only public addresses, pinned, every redirect re-checked)
 * and the browser is sent to the final URL, so the page's relative references resolve as they
 * do for a visitor; every request the page then makes (stylesheets, fonts, images, frames, its
 * own navigations, scripts' fetches) is performed by the same fetcher, under the same checks
 * and the job's byte caps. A refused or unreachable resource is left out and counted as blocked;
 * a refused or unreachable page fails the job (UNSAFE_INPUT, URL_UNREACHABLE), and so does any
 * response past a byte cap (INPUT_LIMIT_EXCEEDED).
 *
 * A resource that redirects is answered at the URL the page asked for: a stylesheet moved
 * elsewhere resolves its own relative references against its old address.
 */
import type { Request } from 'playwright-core';
import { FileconvError, isFileconvError } from '../../core/errors.js';
import { parseUrlFile } from '../../core/formats/url-file.js';
import { type CaptureCredentials, credentialHeaders } from './capture-credentials.js';
import { statusListed } from './chromium-options.js';
import type { PageSource, SourceRefusal, SourceResponse } from './page-source.js';
import {
  refusedUrl,
  unreachableUrl,
  WebFetcher,
  type WebFetchLimits,
  type WebResponse,
} from './web-fetch.js';

export interface WebSourceSettings {
  /** The page to capture, as the URL file names it. */
  url: string;
  limits: WebFetchLimits;
  /** Fetch from loopback, private and other non-public addresses too (intranets, tests). */
  allowPrivateAddresses: boolean;
  /** The job's cookies, extra headers and User-Agent (capture-credentials.ts decides where each goes). */
  credentials?: CaptureCredentials | undefined;
  /** The page's statuses that fail the job; undefined: every status but 2xx. */
  failOnHttpStatusCodes?: readonly number[] | undefined;
}

/** What the first request for the page sends: a browser's Accept, so servers answer with HTML. */
const PAGE_HEADERS = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en',
  'user-agent': 'Mozilla/5.0 (compatible; fileconv)',
};

/**
 * The http(s) URL a URL file names. CORRUPT_INPUT when the text is no URL file, UNSAFE_INPUT for
 * any other scheme (file:, data:, javascript:...), before a browser or a socket is involved.
 */
export function pageUrl(text: string): string {
  const named = parseUrlFile(text);
  if (named === undefined) {
    throw new FileconvError(
      'CORRUPT_INPUT',
      'The input is not a URL file: give one http(s) URL, or an Internet shortcut with a URL= line.',
      { details: { reason: 'no-url' } },
    );
  }
  let url: URL;
  try {
    url = new URL(named);
  } catch (error) {
    throw new FileconvError('CORRUPT_INPUT', `The URL file names no valid URL: ${named.slice(0, 200)}`, {
      cause: error,
      details: { reason: 'no-url' },
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refusedUrl(
      url.href.slice(0, 200),
      `the ${url.protocol} scheme is refused (only http and https are fetched)`,
    );
  }
  return url.href;
}

function answer(response: WebResponse): SourceResponse {
  return { status: response.status, headers: response.headers, body: response.body };
}

export function webSource(settings: WebSourceSettings): PageSource {
  let fetcher: WebFetcher | undefined;
  let page: WebResponse | undefined;
  return {
    async open(signal) {
      fetcher = new WebFetcher(
        settings.limits,
        settings.allowPrivateAddresses,
        signal,
        credentialHeaders(settings.credentials ?? {}, settings.url),
      );
      const response = await fetcher.fetch({ url: settings.url, method: 'GET', headers: PAGE_HEADERS });
      const failOn = settings.failOnHttpStatusCodes;
      const fails = failOn
        ? statusListed(failOn, response.status)
        : response.status < 200 || response.status > 299;
      if (fails)
        throw unreachableUrl(
          response.url,
          `the server answered ${response.status}`,
          undefined,
          response.status,
        );
      page = response;
      return response.url;
    },

    async respond(request: Request, document: boolean): Promise<SourceResponse | SourceRefusal> {
      if (document && page) return answer(page);
      if (!fetcher) throw new Error('webSource: respond() before open()');
      try {
        return answer(
          await fetcher.fetch({
            url: request.url(),
            method: request.method(),
            headers: await request.allHeaders(),
            body: request.postDataBuffer(),
          }),
        );
      } catch (error) {
        // A refused or unreachable resource is left out; a cap passed fails the job.
        if (isFileconvError(error, 'UNSAFE_INPUT') || isFileconvError(error, 'URL_UNREACHABLE')) {
          return { refused: true, error };
        }
        throw error;
      }
    },

    close() {
      page = undefined;
    },
  };
}
