/**
 * Runs libarchive's bsdtar and bsdcat the way the archive converter needs: like runTool (no
 * shell, stdin closed, SIGKILL on abort or timeout, reaped before the call settles), but with
 * stdout streamed to a callback as bytes (the inspection reads a tar stream and stops it at the
 * first broken rule), and in a UTF-8 locale, so names that are not ASCII keep their bytes
 * whatever locale the service runs in.
 */
import { spawn } from 'node:child_process';
import { abortError } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { DEFAULT_TOOL_TIMEOUT_MS, locateTool, redact } from '../../kit/command-tools.js';

export interface ArchiveToolOptions {
  signal: AbortSignal;
  /** Each chunk of stdout; return false to stop the tool there (it is killed). A throw stops it too and is rethrown. */
  onStdout?: (chunk: Buffer) => boolean | undefined;
  /** Paths in stderr -> the names to show instead. */
  names?: Record<string, string>;
  timeoutMs?: number;
}

export interface ArchiveToolOutcome {
  code: number | null;
  /** The end of stderr, paths replaced. */
  stderr: string;
}

const STDERR_TAIL = 16 * 1024;

export async function runArchiveTool(
  tool: 'bsdtar' | 'bsdcat',
  args: readonly string[],
  options: ArchiveToolOptions,
): Promise<ArchiveToolOutcome> {
  const command = await locateTool(tool, 'Converting an archive');
  const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  const signal = AbortSignal.any([options.signal, timeout]);
  if (signal.aborted) throw abortError(signal);
  return new Promise<ArchiveToolOutcome>((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', options.onStdout ? 'pipe' : 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
      shell: false,
    });
    let stderr = '';
    let stopped = false;
    let failure: unknown;
    const stop = () => {
      stopped = true;
      child.kill('SIGKILL');
    };
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (stopped) return;
      try {
        if (options.onStdout?.(chunk) === false) stop();
      } catch (error) {
        failure = error;
        stop();
      }
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('error', (error) => {
      // Only a spawn failure (no pid) ends the call here; 'close' may not follow it.
      if (child.pid !== undefined) return;
      signal.removeEventListener('abort', onAbort);
      reject(
        new FileconvError('ENGINE_UNAVAILABLE', `${tool} could not be started: ${error.message}`, {
          cause: error,
          details: { tool },
        }),
      );
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (failure !== undefined) reject(failure);
      else if (signal.aborted) reject(abortError(signal));
      else resolve({ code, stderr: redact(stderr, options.names ?? {}) });
    });
  });
}
