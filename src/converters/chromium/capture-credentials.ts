/**
 * What a URL capture adds to its requests on the job's word (`cookies`, `extraHttpHeaders`,
 * `userAgent`), and to which of them: the web fetcher (web-fetch.ts) asks for every request
 * and every redirect hop, so a page's credentials never reach a host they were not meant for,
 * whatever the page or a redirect points at. Extra headers go to the page's own origin only; a
 * cookie without a domain too, one with a domain to that host and its subdomains (as a browser
 * does, RFC 6265 section 5.1.3), under its path. The User-Agent goes everywhere: it is no secret.
 */
import type { ChromiumOptions } from './chromium-options.js';

export type CaptureCredentials = Pick<ChromiumOptions, 'cookies' | 'extraHttpHeaders' | 'userAgent'>;

type Cookie = NonNullable<CaptureCredentials['cookies']>[number];

/** RFC 6265 section 5.1.4: `path` is the cookie's path or under it. */
function pathMatches(cookiePath: string, path: string): boolean {
  if (path === cookiePath) return true;
  if (!path.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || path[cookiePath.length] === '/';
}

function cookieGoesTo(cookie: Cookie, url: URL, page: URL): boolean {
  if (!pathMatches(cookie.path ?? '/', url.pathname)) return false;
  if (cookie.domain === undefined) return url.origin === page.origin;
  const domain = cookie.domain.replace(/^\./, '').toLowerCase();
  return url.hostname === domain || url.hostname.endsWith(`.${domain}`);
}

/**
 * The headers the job adds to a request to `url`, the page being `pageUrl` (the URL the client
 * named). Lower-case names, as the fetcher merges them.
 */
export function credentialHeaders(
  credentials: CaptureCredentials,
  pageUrl: string,
): (url: URL) => Record<string, string> {
  const page = new URL(pageUrl);
  const extra = Object.entries(credentials.extraHttpHeaders ?? {}).map(
    ([name, value]) => [name.toLowerCase(), value] as const,
  );
  return (url) => {
    const headers: Record<string, string> = {};
    if (credentials.userAgent !== undefined) headers['user-agent'] = credentials.userAgent;
    if (url.origin === page.origin) for (const [name, value] of extra) headers[name] = value;
    const cookies = (credentials.cookies ?? []).filter((cookie) => cookieGoesTo(cookie, url, page));
    if (cookies.length > 0) headers.cookie = cookies.map(({ name, value }) => `${name}=${value}`).join('; ');
    return headers;
  };
}
