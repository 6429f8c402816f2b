/**
 * `fileconv serve` as a child process of a test (from the TypeScript sources, through tsx), on a
 * port the OS chooses: the URL is read from the line the server prints once it listens. A fixed
 * random port could be in use (the OS hands out ports from 32768 up to client connections), and
 * a server that cannot start fails the test at once with what it printed, not after a minute of
 * polling.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
/** Node arguments that run the CLI from its sources. */
export const CLI_ARGS = ['--import', 'tsx', join(ROOT, 'test/helpers/run-cli.ts')];

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** What the server wrote to stdout so far (its log; the first 4 MiB). */
  stdout(): string;
}

const KEPT_STDOUT = 4 * 1024 * 1024;

/** Starts `fileconv serve <args> --port 0 --host 127.0.0.1`; resolves with its URL once it listens. */
export function startServeProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  /** Node arguments that run the CLI: its sources through tsx (default), or the built bin/fileconv.js. */
  cli: readonly string[] = CLI_ARGS,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...cli, 'serve', ...args, '--port', '0', '--host', '127.0.0.1'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`fileconv serve did not start within 60 s: ${stderr}`));
    }, 60_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    let started = false;
    // Always read, so a long request log cannot block the server on a full pipe.
    child.stdout?.on('data', (chunk: Buffer) => {
      if (stdout.length < KEPT_STDOUT) stdout += chunk.toString();
      if (started) return;
      const listening = /serving on (http:\/\/\S+?)[\s(]/.exec(stdout);
      if (!listening) return;
      started = true;
      clearTimeout(timer);
      resolve({
        child,
        url: listening[1]!.replace('localhost', '127.0.0.1'),
        stderr: () => stderr,
        stdout: () => stdout,
      });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`fileconv serve exited (${code ?? signal}) before it listened: ${stderr}`));
    });
  });
}

/** Any other CLI command (`worker`, ...) as a child process, its stdout ignored. */
export function startCliProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  stderr: 'inherit' | 'ignore' = 'inherit',
  cli: readonly string[] = CLI_ARGS,
): ChildProcess {
  return spawn(process.execPath, [...cli, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', stderr],
  });
}

/** Resolves once `child` has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}
