/**
 * The Next.js example (examples/nextjs) passes the HTTP conformance suite through a real Next
 * server: `next build` once, then Next's custom-server API (`next({ dev: false, dir })`,
 * `getRequestHandler()`) behind a node:http server in this process, the process whose memory
 * the suite samples.
 *
 * Next runs the route module from its build, so the suite's engine cannot reach it by import:
 * before each mount the test fills the globalThis slot that examples/nextjs/lib/fileconv.ts
 * reads (an app never does; it creates its own fileconv on the first request).
 *
 * The route loads fileconv as a server external package, from examples/nextjs/node_modules.
 * npm links `file:../..` there (a symlink to this repository), and Next bundles every module
 * whose real path is outside node_modules, serverExternalPackages or not; bundled, fileconv
 * would lose its worker files and native modules. So the test puts a real copy there first
 * (package.json and dist/, as npm installs the package from the registry; its dependencies
 * resolve from this repository's node_modules, up the tree), and runs the suite from that same
 * copy: a FileconvError of one copy of fileconv is no FileconvError to another.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, rmSync, unlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type {
  HttpMountSetup,
  MountedHttpService,
  testHttpService as TestHttpService,
} from 'fileconv/testing';
import { afterAll, beforeAll, it } from 'vitest';
import { assertBuiltPackageFresh } from './helpers/built-package.js';
import { describeWithEngine } from './helpers/engines.js';
import { listening } from './helpers/listening.js';

const root = join(import.meta.dirname, '..');
const appDir = join(root, 'examples/nextjs');
/** The route's folder: app/files/[[...path]]/route.ts. */
const BASE_PATH = '/files';
/** The slot examples/nextjs/lib/fileconv.ts reads. */
const SLOT = Symbol.for('fileconv.example.nextjs');
const INSTALL = 'npm ci --prefix examples/nextjs --ignore-scripts';

/** What a Next server offers a custom server (the part of `next`'s NextServer used here). */
interface NextServer {
  prepare(): Promise<void>;
  getRequestHandler(): (req: unknown, res: unknown) => Promise<void>;
  close(): Promise<void>;
}

const nextInstalled = existsSync(join(appDir, 'node_modules/next/package.json'));
const suite = nextInstalled
  ? ((await import(pathToFileURL(stageFileconv()).href)) as { testHttpService: typeof TestHttpService })
  : undefined;

describeWithEngine('Next.js', suite !== undefined, INSTALL, 'examples/nextjs on a real Next server', () => {
  if (!suite) {
    it('passes the HTTP conformance suite', () => {});
    return;
  }
  let handle: ReturnType<NextServer['getRequestHandler']>;
  let app: NextServer | undefined;

  beforeAll(async () => {
    const build = spawnSync(process.execPath, [join(appDir, 'node_modules/next/dist/bin/next'), 'build'], {
      cwd: appDir,
      env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`);
    const requireFromApp = createRequire(join(appDir, 'package.json'));
    const { default: next } = (await import(pathToFileURL(requireFromApp.resolve('next')).href)) as {
      default: (options: { dev: boolean; dir: string; quiet: boolean }) => NextServer;
    };
    app = next({ dev: false, dir: appDir, quiet: true });
    await app.prepare();
    handle = app.getRequestHandler();
  }, 300_000);

  afterAll(async () => {
    await app?.close();
  });

  suite.testHttpService(
    'examples/nextjs',
    async ({ engine, options, basePath }: HttpMountSetup): Promise<MountedHttpService> => {
      (globalThis as Record<symbol, unknown>)[SLOT] = {
        fileconv: Promise.resolve({ engine, http: options }),
      };
      const mounted = await listening(
        createServer((req, res) => void handle(req, res)),
        basePath,
      );
      return {
        url: mounted.url,
        close: async () => {
          await mounted.close();
          delete (globalThis as Record<symbol, unknown>)[SLOT];
        },
      };
    },
    {
      basePath: BASE_PATH,
      // What Next.js 16 itself does not pass through, whatever the route does (no option
      // changes either): it drops Content-Length from every route handler's Response
      // (server/send-response.ts, FORBIDDEN_HEADERS), so downloads go out chunked and HEAD
      // tells no length; and its router answers a path that is not valid percent-encoding
      // before any route runs (a plain-text 500 in an App Router app).
      frameworkLimits: { dropsContentLength: true, refusesMalformedPaths: true },
      // A fetch handler leaves compression to its framework (Next.js drops a route's own
      // Content-Encoding, so the service must not encode).
      compression: false,
    },
  );
});

/**
 * Replaces examples/nextjs/node_modules/fileconv (npm's symlink, or an earlier copy) with a copy
 * of the built package; answers the path of its fileconv/testing entry.
 */
function stageFileconv(): string {
  assertBuiltPackageFresh();
  const target = join(appDir, 'node_modules/fileconv');
  const existing = lstatSync(target, { throwIfNoEntry: false });
  if (existing?.isSymbolicLink()) unlinkSync(target);
  else if (existing) rmSync(target, { recursive: true });
  mkdirSync(target);
  cpSync(join(root, 'package.json'), join(target, 'package.json'));
  cpSync(join(root, 'dist'), join(target, 'dist'), { recursive: true });
  return join(target, 'dist/src/testing/index.js');
}
