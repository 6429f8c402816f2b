/**
 * Limits as an operator sets them without code: a JSON plan table in a file ($FILECONV_PLANS,
 * `fileconv serve --plans`), merged into the default plans with definePlans, and a switch that
 * turns rate limits and quotas off for an internal deployment behind its own access control
 * ($FILECONV_LIMITS=off, `fileconv serve --no-limits`; the switch is a setting of settings.ts). Both fail at start, naming the file or
 * variable and the field, never on the first request.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FileconvError } from '../core/errors.js';
import { definePlans, type PlanOverride, type PlanTable } from '../core/policy/plans.js';
import { embeddedLayers, resolveSetting } from './setting-sources.js';
import { envOf } from './settings.js';

/**
 * The plan table of a JSON file: `{ "free": { "conversionsPerDay": 100 }, "team": { ... } }`,
 * each plan's fields merged over the default plan of that name (a new plan gives every field).
 * INVALID_OPTIONS naming the file, and the plan and field, when it cannot be used.
 */
export async function loadPlansFile(path: string): Promise<PlanTable> {
  const file = resolve(path);
  const overrides = await readJsonFile(file, 'Plans file');
  if (overrides === null || typeof overrides !== 'object' || Array.isArray(overrides)) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `Plans file ${file}: must hold a JSON object of plans by name, e.g. {"free": {"conversionsPerDay": 100}}.`,
      { details: { file } },
    );
  }
  try {
    return definePlans(overrides as Record<string, PlanOverride>);
  } catch (cause) {
    // definePlans names the plan and the field ('definePlans: plan "free" field "..." must be ...').
    const message = cause instanceof Error ? cause.message.replace(/^definePlans: /, '') : String(cause);
    throw new FileconvError('INVALID_OPTIONS', `Plans file ${file}: ${message}`, {
      cause,
      details: { file, ...(cause instanceof FileconvError ? cause.details : {}) },
    });
  }
}

/**
 * The JSON value of a settings file (`what`: 'Plans file', 'Config file'); INVALID_OPTIONS
 * naming the file when it cannot be read or is not JSON.
 */
export async function readJsonFile(file: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(cause);
    throw new FileconvError('INVALID_OPTIONS', `${what} ${file}: cannot be read (${reason}).`, {
      cause,
      details: { file },
    });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new FileconvError(
      'INVALID_OPTIONS',
      `${what} ${file}: not valid JSON (${cause instanceof Error ? cause.message : String(cause)}).`,
      { cause, details: { file } },
    );
  }
}

/**
 * $FILECONV_LIMITS as createFileconv reads it (or `value`, as that variable's text): off (any
 * boolean spelling: 0, false, off, no) turns rate limits and quotas off; on, or unset, keeps
 * them. Anything else is refused at start rather than guessed at.
 */
export function limitsFromEnv(value?: string): boolean {
  const layers =
    value === undefined ? embeddedLayers({}) : { env: { vars: { [envOf('limits')]: value }, legacy: false } };
  return resolveSetting('limits', layers).value;
}
