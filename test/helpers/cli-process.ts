/** The fileconv CLI as a child process, from its TypeScript sources, with what it printed. */
import { spawn } from 'node:child_process';
import { CLI_ARGS } from './serve-process.js';

/** `--import tsx` resolved to a path, so the CLI starts from any working directory. */
export const CLI = CLI_ARGS.map((arg) => (arg === 'tsx' ? import.meta.resolve('tsx') : arg));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `fileconv <args>` to its end; `env` is added to this process's environment. */
export function runCli(
  args: readonly string[],
  options: {
    env?: Record<string, string | undefined>;
    cwd?: string | undefined;
    /** Node arguments that run the CLI (default: its sources through tsx). */
    cli?: readonly string[];
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.cli ?? CLI), ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
