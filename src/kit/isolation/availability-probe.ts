/**
 * Whether an isolated converter can run, answered where its library loads: in a child process,
 * never in the service (a library loaded there stays in its heap for good, and pdf.js's core-js
 * replaces JSON.stringify, Array.prototype.push and other built-ins with slower polyfills).
 *
 * One process answers every converter asked while it lives (a service asks them all at start:
 * one process start, not one per converter), and is let go once nothing waits on it: kept, it
 * would be an idle process that a health check left behind.
 */
import type { ChildProcess } from 'node:child_process';
import type { Availability } from '../../core/ports/index.js';
import { startChild } from './child-process.js';
import type { AvailabilityMessage, ConverterRequest, ParentMessage } from './process-protocol.js';

/** How long a child may take to load a library and answer whether it can run. */
const PROBE_MS = 60_000;
/** The probe loads every isolated library at once: more room than one conversion's default. */
const PROBE_HEAP_MB = 1024;

/** The live probe process and the answers waiting on it. */
interface Probe {
  process: ChildProcess;
  waiting: Map<number, (availability: Availability) => void>;
}

let current: Probe | undefined;
let lastId = 0;

function startProbe(): Probe {
  const probe: Probe = { process: startChild(PROBE_HEAP_MB), waiting: new Map() };
  probe.process.on('error', () => {});
  probe.process.on('message', (message: AvailabilityMessage) => {
    probe.waiting.get(message.id)?.(message.availability);
  });
  probe.process.on('exit', (code, signal) => {
    if (current === probe) current = undefined;
    const reason = `The engine's process stopped before it could answer (${signal ?? `exit code ${code}`}).`;
    for (const answer of [...probe.waiting.values()]) answer({ ok: false, reason });
  });
  return probe;
}

/** The converter's own available(), from a child that has loaded it. */
export function askAvailability(request: ConverterRequest): Promise<Availability> {
  current ??= startProbe();
  const probe = current;
  const id = ++lastId;
  return new Promise<Availability>((resolve) => {
    const timer = setTimeout(() => {
      answer({ ok: false, reason: `The engine did not say within ${PROBE_MS / 1000} s whether it can run.` });
      // A process that loads for a minute is stuck: the others it owes an answer are told so.
      probe.process.kill('SIGKILL');
    }, PROBE_MS);
    function answer(availability: Availability): void {
      clearTimeout(timer);
      probe.waiting.delete(id);
      // Nothing else waits: the process goes (it ends when let go, converter-process.ts).
      if (probe.waiting.size === 0) {
        if (current === probe) current = undefined;
        if (probe.process.connected) probe.process.disconnect();
      }
      resolve(availability);
    }
    probe.waiting.set(id, answer);
    probe.process.send({ type: 'available', id, request } satisfies ParentMessage);
  });
}
