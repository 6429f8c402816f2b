/**
 * Cold mode: one `soffice.bin --convert-to` per document, each with its own fresh profile (two
 * runs sharing one silently lose outputs). About 1-3 s a document instead of ~0.1 s warm, but it
 * needs no Python with the uno module, so it is the fallback when python3-uno is missing.
 *
 * Unlike the pool, a cold run cannot tell a password prompt from a broken file (soffice prints
 * "source file could not be loaded" for both), so both are CORRUPT_INPUT here; encrypted OOXML is
 * still PASSWORD_PROTECTED, caught by the zip check before LibreOffice runs. The PDF export's
 * options go after the filter name as JSON; `password` and `landscape` need the pool.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { abortError } from '../../core/abort.js';
import { FileconvError } from '../../core/errors.js';
import { ChildCpuMeter } from '../../kit/cpu-time.js';
import { timeoutError, withoutBacktrace } from './libreoffice-errors.js';
import { guardPid, unguardPid } from './libreoffice-guard.js';
import { assertColdCan, filterDataJson } from './libreoffice-pdf-export.js';
import type { BridgeRequest, SpawnKind } from './libreoffice-process.js';
import { createProfile, guardSockets, removeProfile, sofficeEnv } from './libreoffice-profile.js';

const RESTART_EXIT_CODE = 81; // soffice.bin asks to be started again after creating a fresh profile
const OUTPUT_TAIL = 8 * 1024;

export interface ColdRun {
  soffice: string;
  request: BridgeRequest;
  /** A private scratch dir (under ctx.tempDir) for the profile and the output. */
  scratch: string;
  signal: AbortSignal;
  timeoutMs: number;
  onSpawn?: ((pid: number, kind: SpawnKind) => void) | undefined;
}

interface Outcome {
  code: number | null;
  output: string;
  cpuMs: number | undefined;
  spawnError?: Error;
}

function runOnce(soffice: string, args: string[], env: NodeJS.ProcessEnv, run: ColdRun, signal: AbortSignal) {
  return new Promise<Outcome>((resolve) => {
    const meter = new ChildCpuMeter();
    const child = spawn(soffice, args, { stdio: ['ignore', 'pipe', 'pipe'], env, windowsHide: true });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const onAbort = () => child.kill('SIGKILL');
    signal.addEventListener('abort', onAbort, { once: true });
    if (child.pid !== undefined) {
      guardPid(child.pid);
      meter.watch(child.pid);
      run.onSpawn?.(child.pid, 'soffice');
    }
    let code: number | null = null;
    child.once('exit', (exitCode) => {
      code = exitCode;
    });
    child.once('error', (error) => {
      meter.stop();
      signal.removeEventListener('abort', onAbort);
      if (child.pid === undefined) resolve({ code: null, output, cpuMs: undefined, spawnError: error });
    });
    child.once('close', async () => {
      signal.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) unguardPid(child.pid);
      resolve({ code, output, cpuMs: await meter.finish() });
    });
  });
}

/** Converts `run.request` with a cold soffice; the result is at `run.request.output`'s dir. */
export async function convertCold(run: ColdRun): Promise<{ cpuMs?: number; produced: string }> {
  const { request } = run;
  assertColdCan(request);
  const profile = await createProfile(join(run.scratch, 'cold'));
  guardSockets(profile);
  const outdir = join(run.scratch, 'cold-out');
  await mkdir(outdir);
  const target = extname(request.output).slice(1);
  const exportSpec = [
    target,
    request.exportFilter,
    ...(request.exportOptions ? [request.exportOptions] : []),
    ...(request.filterData ? [filterDataJson(request.filterData)] : []),
  ];
  const args = [
    `-env:UserInstallation=${profile.url}`,
    ...['--headless', '--invisible', '--nologo', '--norestore', '--nodefault', '--nolockcheck'],
    ...(request.importFilter
      ? [`--infilter=${[request.importFilter, request.importOptions].filter(Boolean).join(':')}`]
      : []),
    ...['--convert-to', exportSpec.join(':'), '--outdir', outdir, request.input],
  ];
  const timeout = AbortSignal.timeout(run.timeoutMs);
  const signal = AbortSignal.any([run.signal, timeout]);
  const env = sofficeEnv(profile);
  let cpuMs = 0;
  try {
    for (let attempt = 0; ; attempt++) {
      const outcome = await runOnce(run.soffice, args, env, run, signal);
      cpuMs += outcome.cpuMs ?? 0;
      if (run.signal.aborted) throw abortError(run.signal);
      if (timeout.aborted) throw timeoutError(run.timeoutMs);
      if (outcome.spawnError) {
        const { message } = outcome.spawnError;
        throw new FileconvError('ENGINE_UNAVAILABLE', `LibreOffice could not be started: ${message}`, {
          cause: outcome.spawnError,
        });
      }
      // A fresh profile makes the first start exit 81 after creating it, asking for a restart.
      if (outcome.code === RESTART_EXIT_CODE && attempt < 2) continue;
      const produced = await readdir(outdir);
      const expected = `${basename(request.input, extname(request.input))}.${target}`;
      if (produced.includes(expected)) return { cpuMs, produced: join(outdir, expected) };
      throw coldError(outcome);
    }
  } finally {
    // The profile's sockets in /tmp are only left when soffice was killed; remove them anyway.
    await removeProfile(profile);
  }
}

function coldError(outcome: Outcome): FileconvError {
  const message = withoutBacktrace(outcome.output).slice(-2).join(' | ');
  const details = { engine: 'libreoffice', mode: 'cold', exitCode: outcome.code };
  if (/could not be loaded/i.test(message)) {
    return new FileconvError('CORRUPT_INPUT', `LibreOffice could not open the file: ${message}`, { details });
  }
  return new FileconvError(
    'CONVERSION_FAILED',
    `LibreOffice wrote no result${message ? `: ${message}` : ''}`,
    {
      details,
    },
  );
}
