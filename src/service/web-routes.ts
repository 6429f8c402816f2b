/**
 * The web converter: one page (GET /) with its stylesheet and script (GET /web/style.css,
 * GET /web/app.js) that drive Flow A and the PDF tools from the browser. The script is bundled
 * from TypeScript (web/src/, by scripts/build-web.mjs at build, install and test time); no
 * framework, no third-party origin: the page works on an offline machine and under a strict CSP.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { FileconvError } from '../core/errors.js';
import { findPackageFile } from '../kit/script-path.js';
import { matchesEtag } from './compression.js';
import { type HttpAnswer, type HttpExchange, singleQueryValue } from './exchange.js';
import type { RouteContext } from './route-context.js';
import type { Route } from './routes.js';

const ASSETS = {
  'page.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
} as const;
type AssetName = keyof typeof ASSETS;

interface Asset {
  body: Buffer;
  type: string;
  /** A strong validator: the body's hash. */
  etag: string;
}

/** The assets' directory: src/service/web/ in the sources, copied to the same place under dist/ by the build. */
export function webAssetsDir(): string | undefined {
  const page = findPackageFile(import.meta.url, ['src/service/web/page.html']);
  return page === undefined ? undefined : page.slice(0, -'page.html'.length);
}

/** Reads the three files once; the page gets a version tag so the other two can be cached for good. */
async function loadAssets(): Promise<Record<AssetName, Asset>> {
  const dir = webAssetsDir();
  if (!dir) throw new FileconvError('INTERNAL', 'The web converter assets (src/service/web/) are missing.');
  const read = async (name: AssetName): Promise<Asset> => ({
    body: await readFile(`${dir}${name}`),
    type: ASSETS[name],
    etag: '',
  });
  const [page, app, style] = await Promise.all([read('page.html'), read('app.js'), read('style.css')]);
  const version = createHash('sha256').update(app.body).update(style.body).digest('hex').slice(0, 12);
  page.body = Buffer.from(page.body.toString('utf8').replaceAll('__VERSION__', version));
  for (const asset of [page, app, style]) {
    asset.etag = `"${createHash('sha256').update(asset.body).digest('base64url').slice(0, 27)}"`;
  }
  return { 'page.html': page, 'app.js': app, 'style.css': style };
}

/**
 * Where the browser may send requests: this origin, plus the storage's origin when uploads go
 * straight to presigned storage URLs (S3). Presigning is local signing, so one throwaway URL
 * tells the origin without touching the network; if it fails, only 'self' (uploads would then
 * be blocked by the browser, which says so in its console).
 */
async function connectSources(ctx: RouteContext): Promise<string> {
  const storage = ctx.links.storage;
  if (!storage?.presignPut) return "'self'";
  try {
    const probe = await storage.presignPut('fileconv-web-csp-probe', {
      contentType: 'application/octet-stream',
      size: 1,
      expiresIn: 60,
    });
    const { origin } = new URL(probe);
    return origin === 'null' ? "'self'" : `'self' ${origin}`;
  } catch {
    return "'self'";
  }
}

function securityHeaders(connectSrc: string): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src ${connectSrc}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    // Signed upload and download URLs carry their credential in the query: never leak it in Referer.
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
}

export function webConverterRoutes(ctx: RouteContext): Route[] {
  let loaded: Promise<{ assets: Record<AssetName, Asset>; connectSrc: string }> | undefined;
  const load = () => {
    loaded ??= Promise.all([loadAssets(), connectSources(ctx)]).then(([assets, connectSrc]) => ({
      assets,
      connectSrc,
    }));
    // A failed read is retried on the next request rather than cached forever.
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };

  const send = async (exchange: HttpExchange, name: AssetName): Promise<HttpAnswer> => {
    const { assets, connectSrc } = await load();
    const asset = assets[name];
    // The page revalidates (ETag) so a new version is picked up at once; it names the script
    // and stylesheet with a content hash, so those may be cached for a year. A request without
    // the current hash (someone typing the URL, an old page) gets a short cache instead.
    const cacheControl =
      name === 'page.html'
        ? 'no-cache'
        : singleQueryValue(exchange.query, 'v') !== undefined
          ? 'public, max-age=31536000, immutable'
          : 'public, max-age=300';
    // Vary: each asset is sent br or gzip to clients that accept it (compression.ts).
    const headers = {
      ...securityHeaders(connectSrc),
      'cache-control': cacheControl,
      etag: asset.etag,
      vary: 'Accept-Encoding',
    };
    if (matchesEtag(exchange.header('if-none-match'), asset.etag))
      return { status: 304, headers, body: null };
    return {
      status: 200,
      headers: { ...headers, 'content-type': asset.type, 'content-length': String(asset.body.length) },
      body: asset.body,
    };
  };

  return [
    {
      method: 'GET',
      path: '/',
      public: true,
      async handle({ exchange }) {
        // Mounted at /v1, the page must be /v1/ so its relative links (web/app.js, api/...)
        // resolve under the mount path rather than at the host's root.
        if (exchange.path === '') {
          const query = exchange.query.size > 0 ? `?${exchange.query}` : '';
          return { status: 301, headers: { location: `${exchange.mountPath}/${query}` }, body: null };
        }
        return send(exchange, 'page.html');
      },
    },
    { method: 'GET', path: '/web/app.js', public: true, handle: ({ exchange }) => send(exchange, 'app.js') },
    {
      method: 'GET',
      path: '/web/style.css',
      public: true,
      handle: ({ exchange }) => send(exchange, 'style.css'),
    },
  ];
}
