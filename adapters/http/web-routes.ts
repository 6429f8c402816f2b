/**
 * The web converter: one page (GET /) with its stylesheet and script (GET /web/style.css,
 * GET /web/app.js), plain static files that drive Flow A from the browser. No framework, no
 * build step, no third-party origin: the page works on an offline machine and under a strict CSP.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Request, Response, Router } from 'express';
import { FileconvError } from '../../src/errors.js';
import type { RouteContext } from './route-context.js';

const ASSETS = {
  'page.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
} as const;
type AssetName = keyof typeof ASSETS;

interface Asset {
  body: Buffer;
  type: string;
}

/**
 * The assets' directory: beside this file in the sources (adapters/http/web/), and after the
 * build at dist/adapters/http/web/, while this code may be bundled into dist/adapters/http/
 * express.js, a shared chunk at dist/'s root or dist/bin/cli.js: each is tried (like office's
 * bridgeScript()).
 */
export function webAssetsDir(): string | undefined {
  for (const candidate of ['./web/', './adapters/http/web/', '../adapters/http/web/']) {
    const dir = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${dir}page.html`)) return dir;
  }
  return undefined;
}

/** Reads the three files once; the page gets a version tag so the other two can be cached for good. */
async function loadAssets(): Promise<Record<AssetName, Asset>> {
  const dir = webAssetsDir();
  if (!dir) throw new FileconvError('INTERNAL', 'The web converter assets (adapters/http/web/) are missing.');
  const read = async (name: AssetName): Promise<Asset> => ({
    body: await readFile(`${dir}${name}`),
    type: ASSETS[name],
  });
  const [page, app, style] = await Promise.all([read('page.html'), read('app.js'), read('style.css')]);
  const version = createHash('sha256').update(app.body).update(style.body).digest('hex').slice(0, 12);
  page.body = Buffer.from(page.body.toString('utf8').replaceAll('__VERSION__', version));
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

function securityHeaders(res: Response, connectSrc: string): void {
  res.set(
    'Content-Security-Policy',
    [
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
  );
  res.set('X-Content-Type-Options', 'nosniff');
  // Signed upload and download URLs carry their credential in the query: never leak it in Referer.
  res.set('Referrer-Policy', 'no-referrer');
  res.set('X-Frame-Options', 'DENY');
}

export function addWebConverterRoutes(router: Router, ctx: RouteContext): void {
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

  const send = async (req: Request, res: Response, name: AssetName) => {
    const { assets, connectSrc } = await load();
    const asset = assets[name];
    securityHeaders(res, connectSrc);
    res.type(asset.type);
    // The page revalidates (ETag) so a new version is picked up at once; it names the script
    // and stylesheet with a content hash, so those may be cached for a year. A request without
    // the current hash (someone typing the URL, an old page) gets a short cache instead.
    if (name === 'page.html') res.set('Cache-Control', 'no-cache');
    else if (req.query.v !== undefined) res.set('Cache-Control', 'public, max-age=31536000, immutable');
    else res.set('Cache-Control', 'public, max-age=300');
    res.send(asset.body);
  };

  router.get('/', async (req, res) => {
    // Mounted at /v1, the page must be /v1/ so its relative links (web/app.js, api/...) resolve
    // under the mount path rather than at the host's root.
    const path = req.originalUrl.split('?', 1)[0]!;
    if (!path.endsWith('/')) {
      const query = req.originalUrl.slice(path.length);
      res.redirect(301, `${path}/${query}`);
      return;
    }
    await send(req, res, 'page.html');
  });
  router.get('/web/app.js', (req, res) => send(req, res, 'app.js'));
  router.get('/web/style.css', (req, res) => send(req, res, 'style.css'));
}
