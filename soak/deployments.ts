/**
 * The two deployments the soak runs against, started from nothing and stopped after:
 * - embedded: one `fileconv serve` (file storage, SQLite, in-process queue and workers);
 * - scaled: two API nodes (`serve --no-worker`) and two `fileconv worker` processes on a
 *   private Redis (append-only, fsync always) and s3rver, as a small production would run.
 * Every data and temp dir sits on one size-limited scratch disk, so the soak can fill it.
 * Each client gets an API key on the Enterprise plan, given a daily conversion quota here so
 * refunds show in /api/usage.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MALLOC_SETTINGS } from '../src/kit/malloc-settings.js';
import { runCli } from '../test/helpers/cli-process.js';
import { type RedisServer, startRedisServer } from '../test/helpers/redis-process.js';
import { s3rverEnv } from '../test/helpers/s3rver.js';
import { exited, startCliProcess, startServeProcess } from '../test/helpers/serve-process.js';
import { mountScratchDisk, type ScratchDisk } from './disk.js';

const ROOT = path.join(import.meta.dirname, '..');
/** Node arguments that run the built CLI, as an operator runs it. */
export const BUILT_CLI = [path.join(ROOT, 'bin', 'fileconv.js')];

export type DeploymentName = 'embedded' | 'scaled';

export interface ServiceNode {
  name: string;
  role: 'serve' | 'api' | 'worker';
  child: ChildProcess;
  /** Its TMPDIR: engines' scratch files and profiles go there. */
  tempDir: string;
  dataDir: string;
  /** What it wrote to stderr (serve nodes; workers write theirs to a file). */
  stderr(): string;
  /** Set when the soak kills it on purpose. */
  killedOnPurpose?: boolean;
}

export interface Deployment {
  name: DeploymentName;
  urls: string[];
  /** The nodes now running (a worker restarted after a kill replaces its entry). */
  nodes: ServiceNode[];
  keys: string[];
  scratch: ScratchDisk;
  redis?: RedisServer;
  s3?: { pause(): Promise<void>; resume(): Promise<void> };
  /** Starts a new worker in place of `node` (scaled only), as a supervisor would. */
  restartWorker?(node: ServiceNode): Promise<ServiceNode>;
  /** Graceful stop of every node (SIGTERM), then Redis and S3; the scratch disk is released. */
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  clients: number;
  /** Node arguments that run the CLI: BUILT_CLI, or the sources through tsx (tests). */
  cli: readonly string[];
  diskMegabytes: number;
  workerConcurrency: number;
}

/** Daily quota high enough never to run out, so /api/usage counts charges and refunds. */
const PLANS = { enterprise: { conversionsPerDay: 10_000_000, apiCallsPerMonth: null } };

async function prepareRoot(options: DeploymentOptions) {
  const root = await mkdtemp(path.join(tmpdir(), 'fileconv-soak-'));
  const scratch = await mountScratchDisk(root, options.diskMegabytes);
  const plansFile = path.join(root, 'plans.json');
  await writeFile(plansFile, JSON.stringify(PLANS));
  const dirs = async (name: string) => {
    const dataDir = path.join(root, `${name}-data`);
    const tempDir = path.join(root, `${name}-tmp`);
    await Promise.all([mkdir(dataDir), mkdir(tempDir)]);
    return { dataDir, tempDir };
  };
  const cleanup = async () => {
    await scratch.release();
    await rm(root, { recursive: true, force: true });
  };
  return { root, scratch, plansFile, dirs, cleanup };
}

async function createKeys(
  options: DeploymentOptions,
  env: Record<string, string>,
  where: string[],
): Promise<string[]> {
  const keys: string[] = [];
  for (let index = 0; index < options.clients; index++) {
    const run = await runCli(
      ['keys', 'create', '--plan', 'enterprise', '--account', `soak-${index + 1}`, '--json', ...where],
      { env, cli: options.cli },
    );
    if (run.code !== 0) throw new Error(`fileconv keys create failed: ${run.stderr}`);
    keys.push((JSON.parse(run.stdout) as { key: string }).key);
  }
  return keys;
}

/** `work` run once; later calls get the same promise. */
function once(work: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= work();
    return running;
  };
}

async function stopNodes(nodes: readonly ServiceNode[]): Promise<void> {
  for (const node of nodes)
    if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGTERM');
  await Promise.all(nodes.map((node) => exited(node.child)));
}

// Every node runs with the allocator settings `npm start` and the container give it (an
// operator's own value in the environment wins): src/kit/malloc-settings.ts says why.
export async function startEmbedded(options: DeploymentOptions): Promise<Deployment> {
  const root = await prepareRoot(options);
  try {
    const { dataDir, tempDir } = await root.dirs('serve');
    const env = { TMPDIR: tempDir, FILECONV_PLANS: root.plansFile };
    const keys = await createKeys(options, env, ['--data', dataDir]);
    const serve = await startServeProcess(
      ['--data', dataDir, '--no-log', '--trust-proxy', 'loopback'],
      { ...MALLOC_SETTINGS, ...process.env, ...env },
      options.cli,
    );
    const nodes: ServiceNode[] = [
      { name: 'serve', role: 'serve', child: serve.child, tempDir, dataDir, stderr: serve.stderr },
    ];
    return {
      name: 'embedded',
      urls: [serve.url],
      nodes,
      keys,
      scratch: root.scratch,
      stop: once(async () => {
        await stopNodes(nodes);
        await root.cleanup();
      }),
    };
  } catch (error) {
    await root.cleanup();
    throw error;
  }
}

/** s3rver in a child process (soak/s3rver-child.ts), paused and resumed by message. */
async function startS3Child(): Promise<{
  child: ChildProcess;
  endpoint: string;
  bucket: string;
  send(message: 'pause' | 'resume'): Promise<void>;
}> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'soak', 's3rver-child.ts')], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('\n')) resolve(seen.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before it listened`)));
  });
  const [, endpoint, bucket] = line.split(' ');
  return {
    child,
    endpoint: endpoint!,
    bucket: bucket!,
    send: (message) =>
      new Promise((resolve) => {
        child.once('message', () => resolve());
        child.send(message);
      }),
  };
}

export async function startScaled(options: DeploymentOptions): Promise<Deployment> {
  const root = await prepareRoot(options);
  const nodes: ServiceNode[] = [];
  let redis: RedisServer | undefined;
  let s3: Awaited<ReturnType<typeof startS3Child>> | undefined;
  const stopAll = once(async () => {
    await stopNodes(nodes);
    if (s3) {
      s3.child.disconnect();
      await exited(s3.child);
    }
    await redis?.close();
    await root.cleanup();
  });
  try {
    redis = await startRedisServer({ persistent: true });
    s3 = await startS3Child();
    const env: Record<string, string> = {
      REDIS_URL: redis.url,
      ...s3rverEnv(s3),
      FILECONV_SIGNING_SECRET: 'a-secret-shared-by-every-node-of-this-soak',
      FILECONV_PLANS: root.plansFile,
    };
    const keys = await createKeys(options, env, []);
    const urls: string[] = [];
    for (const name of ['api-1', 'api-2']) {
      const { dataDir, tempDir } = await root.dirs(name);
      const api = await startServeProcess(
        ['--no-worker', '--data', dataDir, '--no-log', '--trust-proxy', 'loopback'],
        { ...MALLOC_SETTINGS, ...process.env, ...env, TMPDIR: tempDir },
        options.cli,
      );
      urls.push(api.url);
      nodes.push({ name, role: 'api', child: api.child, tempDir, dataDir, stderr: api.stderr });
    }
    // A restarted worker gets its predecessor's name and dirs, as under a supervisor.
    const startWorker = async (
      name: string,
      dirs?: { dataDir: string; tempDir: string },
    ): Promise<ServiceNode> => {
      const { dataDir, tempDir } = dirs ?? (await root.dirs(name));
      const child = startCliProcess(
        ['worker', '--concurrency', String(options.workerConcurrency), '--data', dataDir],
        { ...MALLOC_SETTINGS, ...process.env, ...env, TMPDIR: tempDir },
        'ignore',
        options.cli,
      );
      const node: ServiceNode = { name, role: 'worker', child, tempDir, dataDir, stderr: () => '' };
      nodes.push(node);
      return node;
    };
    await startWorker('worker-1');
    await startWorker('worker-2');
    const s3Child = s3;
    return {
      name: 'scaled',
      urls,
      nodes,
      keys,
      scratch: root.scratch,
      redis,
      s3: { pause: () => s3Child.send('pause'), resume: () => s3Child.send('resume') },
      async restartWorker(node) {
        nodes.splice(nodes.indexOf(node), 1);
        return startWorker(node.name, node);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
