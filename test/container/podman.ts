/**
 * Running the image under test with podman, as scripts/image/build.sh builds it and this kind of
 * machine allows: runc (the cgroups are hybrid; crun refuses) and the rlimits the machine has
 * (they cannot be raised). Every container and volume a test makes is named after this process,
 * and removed.
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { freePort } from '../helpers/free-port.js';

export { freePort };

const run = promisify(execFile);

export const IMAGE = process.env.FILECONV_IMAGE ?? 'localhost/fileconv:latest';
const LIMITS = ['--ulimit', 'nofile=20000:20000', '--ulimit', 'nproc=4096:4096'];
// No health timer: podman would run it through systemd, which this machine has not; the tests
// run the image's HEALTHCHECK themselves (`podman healthcheck run`).
const RUN_FLAGS = [...LIMITS, '--health-interval', 'disable'];

let made = 0;
const containers: string[] = [];
const volumes: string[] = [];

/** `podman <args>` (runc), its stdout; a failure carries podman's stderr. */
export async function podman(args: string[], timeout = 120_000): Promise<string> {
  const { stdout } = await run('podman', ['--runtime', 'runc', ...args], {
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout.trim();
}

/** Whether the image exists in podman's store (CI builds it with `npm run image` first). */
export async function imageExists(): Promise<boolean> {
  return podman(['image', 'exists', IMAGE]).then(
    () => true,
    () => false,
  );
}

/** A named volume, removed by `removeAll()`. */
export function volumeName(): string {
  const name = `fileconv-test-${process.pid}-${++made}`;
  volumes.push(name);
  return name;
}

/**
 * Starts a detached container of the image: `args` go after the image (the fileconv command).
 * `publish` maps a host port to the container's 3000 (podman's own network, as `-p` in the
 * README); without it the container shares the host's network (its server then needs a PORT).
 */
export async function startContainer(options: {
  args?: string[];
  env?: Record<string, string>;
  volume?: string;
  publish?: number;
}): Promise<string> {
  const name = `fileconv-test-${process.pid}-${++made}`;
  containers.push(name);
  const env = Object.entries(options.env ?? {}).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  const volume = options.volume ? ['-v', `${options.volume}:/data`] : [];
  const network = options.publish ? ['-p', `127.0.0.1:${options.publish}:3000`] : ['--network', 'host'];
  await podman([
    'run',
    '-d',
    '--name',
    name,
    ...RUN_FLAGS,
    ...network,
    ...env,
    ...volume,
    IMAGE,
    ...(options.args ?? []),
  ]);
  return name;
}

/** `podman run --rm IMAGE <args>`: exit code and output of a one-off command. */
export async function runOnce(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      'podman',
      ['--runtime', 'runc', 'run', '--rm', ...LIMITS, IMAGE, ...args],
      {
        timeout: 180_000,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Waits until GET `url` answers 200, or fails with the container's log. */
export async function waitUntilReady(url: string, container: string, seconds = 120): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(5000) }).then(
      async (response) => {
        await response.body?.cancel();
        return response.ok;
      },
      () => false,
    );
    if (ok) return;
    const state = await podman(['inspect', '--format', '{{.State.Status}}', container]);
    if (state === 'exited') break;
    await sleep(500);
  }
  throw new Error(`${url} never answered 200; the container's log:\n${await logs(container)}`);
}

export async function logs(container: string): Promise<string> {
  return run('podman', ['logs', '--tail', '60', container]).then(
    ({ stdout, stderr }) => `${stdout}${stderr}`,
    (error: Error) => error.message,
  );
}

/** Removes every container and volume this process made. */
export async function removeAll(): Promise<void> {
  if (containers.length) await podman(['rm', '-f', '-t', '5', ...containers.splice(0)]).catch(() => {});
  if (volumes.length) await podman(['volume', 'rm', '-f', ...volumes.splice(0)]).catch(() => {});
}
