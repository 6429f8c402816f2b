/**
 * A private redis-server as a child process (never the machine's own instance): started on a
 * free port bound to 127.0.0.1, without persistence unless asked for. `persistent` turns on an
 * fsync-always append-only file in a temp dir, so `restart()` loses nothing, which is what a
 * production Redis for BullMQ needs too. Free of vitest, so `npm run soak` starts Redis with it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

const BINARY = 'redis-server';

/** Whether redis-server can be started here. */
export const redisServerAvailable: boolean = (() => {
  const probe = spawnSync(BINARY, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && /Redis server v=/.test(probe.stdout);
})();

export const REDIS_INSTALL_HINT = 'apt-get install redis-server';

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM, waits for the exit); start() brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** stop() then start(). */
  restart(): Promise<void>;
  /** Stops the server for good and removes its data dir. */
  close(): Promise<void>;
}

/** One PING over a raw socket: true when the answer is +PONG. */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

export async function startRedisServer(options: { persistent?: boolean } = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'fileconv-redis-'));
  let port = await freePort();
  let child: ReturnType<typeof spawn> | undefined;
  let exited: Promise<void> | undefined;

  const args = () => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--dir',
    dir,
    ...(options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
  ];

  async function launch(): Promise<boolean> {
    const started = spawn(BINARY, args(), { stdio: ['ignore', 'ignore', 'pipe'] });
    child = started;
    let dead = false;
    exited = new Promise((resolve) => {
      started.once('exit', () => {
        dead = true;
        resolve();
      });
    });
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !dead) {
      if (await ping(port)) return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (!dead) started.kill('SIGKILL');
    await exited;
    return false;
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    running.kill('SIGTERM');
    await exited;
  }

  async function start(): Promise<void> {
    if (child) return;
    if (!(await launch())) throw new Error(`redis-server did not start on port ${port}`);
  }

  // The free port can be taken between the probe and the start: try a few.
  let ready = false;
  for (let attempt = 0; attempt < 3 && !ready; attempt++) {
    if (attempt > 0) port = await freePort();
    ready = await launch();
  }
  if (!ready) {
    await rm(dir, { recursive: true, force: true });
    throw new Error('redis-server did not start');
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    get port() {
      return port;
    },
    stop,
    start,
    async restart() {
      await stop();
      await start();
    },
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
