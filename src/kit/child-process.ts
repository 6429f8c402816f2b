/**
 * Runs one child process the way every native ffmpeg/ffprobe call needs: no shell (arguments are
 * passed as they are, never parsed), no stdin, bounded output buffers, and on abort SIGKILL
 * followed by waiting for the exit, so no process outlives the call and none is left a zombie.
 */
import { spawn } from 'node:child_process';

export interface ChildRunOptions {
  signal: AbortSignal;
  /** Each chunk of stdout, as text (progress reports). */
  onStdout?: (chunk: string) => void;
  /** Keep stdout up to this many bytes (the rest is dropped and `stdoutOverflow` set). Default 0. */
  keepStdout?: number;
  /** Called once the process runs, with its pid (CPU metering, tests). */
  onSpawn?: (pid: number) => void;
  /** Called when the process has exited and been reaped, before stdio is drained. */
  onExit?: () => void;
  /** Working directory (tools that write next to where they run). Default: this process's. */
  cwd?: string;
  /** Environment of the child. Default: this process's. */
  env?: NodeJS.ProcessEnv;
}

export interface ChildOutcome {
  /** Exit code; null when killed by a signal or never started. */
  code: number | null;
  /** The spawn failure (binary missing or not executable), if any. */
  spawnError: Error | undefined;
  /** True when the call was aborted and the process killed. */
  aborted: boolean;
  stdout: string;
  stdoutOverflow: boolean;
  /** The last STDERR_TAIL characters of stderr: where ffmpeg's error is. */
  stderr: string;
}

const STDERR_TAIL = 16 * 1024;

export function runChild(
  command: string,
  args: readonly string[],
  options: ChildRunOptions,
): Promise<ChildOutcome> {
  const { signal } = options;
  const outcome: ChildOutcome = {
    code: null,
    spawnError: undefined,
    aborted: false,
    stdout: '',
    stdoutOverflow: false,
    stderr: '',
  };
  if (signal.aborted) return Promise.resolve({ ...outcome, aborted: true });

  return new Promise<ChildOutcome>((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      shell: false,
      windowsHide: true,
    });
    const keep = options.keepStdout ?? 0;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    // SIGKILL: ffmpeg may ignore or delay on SIGTERM while flushing a large output. 'close' still
    // follows, after Node has reaped the process, and only then does the promise settle.
    const onAbort = () => {
      outcome.aborted = true;
      child.kill('SIGKILL');
    };
    signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      options.onStdout?.(chunk);
      if (keep === 0 || outcome.stdoutOverflow) return;
      if (outcome.stdout.length + chunk.length > keep) outcome.stdoutOverflow = true;
      else outcome.stdout += chunk;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      outcome.stderr = (outcome.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('spawn', () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
    });
    child.on('exit', (code) => {
      outcome.code = code;
      options.onExit?.();
    });
    child.on('error', (error) => {
      // Spawn failures come here without a pid; errors of a running child (a failed kill) do not end it.
      if (child.pid !== undefined) return;
      outcome.spawnError = error;
      settle();
    });
    child.on('close', settle);
  });
}
