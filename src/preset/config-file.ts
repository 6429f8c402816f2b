/**
 * The configuration file of `fileconv serve` and `fileconv worker`: one JSON file holding what
 * flags and environment variables otherwise say (server, data dir, Redis and S3, plans, limits,
 * retention, engines, workers, CORS), for a deployment that keeps its settings in one reviewed
 * place. Named by --config or $FILECONV_CONFIG, else ./fileconv.config.json when it exists.
 * Validated at start with strict schemas, so a misspelt key fails instead of being ignored,
 * naming the file, the field's path and what was expected. Its shape (and the JSON Schema
 * `fileconv config schema` prints) is generated from the settings table, so a setting has the
 * same key, checks and default as its flag and variable. Secrets never belong in it: the
 * signing and webhook secrets stay in environment variables.
 */
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { FileconvError } from '../core/errors.js';
import { definePlans, type PlanOverride, type PlanTable } from '../core/policy/plans.js';
import { readJsonFile } from './limits-config.js';
import { settingFromEnv } from './setting-sources.js';
import {
  defaultTextOf,
  envNamesOf,
  flagOf,
  SETTING_NAMES,
  type SettingName,
  type SettingValue,
  settingOf,
} from './settings.js';

/** The name picked up from the working directory when neither --config nor $FILECONV_CONFIG is given. */
export const DEFAULT_CONFIG_FILE = 'fileconv.config.json';

/** What each section of the file holds, for the JSON Schema editors show. */
const SECTIONS: Record<string, string> = {
  server: 'The HTTP server of `fileconv serve`.',
  redis: 'Redis for jobs, queue, limits and keys, shared by every node.',
  s3: 'S3 bucket for files; credentials come from the AWS SDK (environment, instance role).',
  retention: 'How long files are kept.',
  engines: 'The conversion engines.',
  workers: 'The conversion workers.',
  queue: 'The shared queue (Redis).',
  cors: 'CORS for browser apps on other origins. Default off.',
  webhooks: 'Webhook delivery (its secret stays in $FILECONV_WEBHOOK_SECRET).',
};

/** A field's description: what it sets, its default, and its other two spellings. */
function describe(name: SettingName): string {
  const { help } = settingOf(name);
  const variables = envNamesOf(name, true)
    .map((variable) => `$${variable}`)
    .join(' or ');
  return `${help.charAt(0).toUpperCase()}${help.slice(1)}. Default ${defaultTextOf(name)} (${variables}, ${flagOf(name)}).`;
}

/** The settings the file may hold: every entry of the table with a file key, by that key. */
function fileSettings(): { name: SettingName; path: [string] | [string, string] }[] {
  return SETTING_NAMES.flatMap((name) => {
    const key = settingOf(name).file;
    if (key === undefined) return [];
    const [section, field] = key.split('.') as [string, string | undefined];
    return [{ name, path: field === undefined ? [section] : [section, field] }];
  });
}

/** The file's shape, built from the settings table; every object strict, every field optional but a section's key. */
function configSchema(engineNames: readonly string[]) {
  const context = { engineNames };
  const shape: Record<string, z.ZodType> = {
    $schema: z.string().optional().meta({
      description: 'The JSON Schema of this file (`fileconv config schema`), for editors; ignored.',
    }),
  };
  // Top-level settings and sections in the table's order, so the JSON Schema reads as the table does.
  const parts = new Map<string, z.ZodType | Record<string, z.ZodType>>();
  for (const { name, path } of fileSettings()) {
    const entry = settingOf(name);
    const schema = (entry.fileSchema ?? entry.kind.schema)(context);
    const field = (entry.requiredInSection ? schema : schema.optional()).meta({
      description: describe(name),
    });
    const [section, key] = path;
    if (key === undefined) parts.set(section, field);
    else
      parts.set(section, { ...(parts.get(section) as Record<string, z.ZodType> | undefined), [key]: field });
  }
  for (const [name, part] of parts) {
    shape[name] =
      part instanceof z.ZodType
        ? part
        : z
            .strictObject(part)
            .optional()
            .meta({ description: SECTIONS[name] ?? name });
  }
  return z.strictObject(shape);
}

/** The file's JSON Schema, for editors (`"$schema"`): `fileconv config schema`. */
export function configJsonSchema(engineNames: readonly string[]): unknown {
  return z.toJSONSchema(configSchema(engineNames), { io: 'input' });
}

/** A loaded, validated config file: its settings by name, the plan table its `plans` make, and where it is. */
export interface ConfigFile {
  /** Absolute path of the file. */
  file: string;
  /** The settings it gives, by the table's names (`dataDir` absolute). */
  settings: { [N in SettingName]?: SettingValue<N> };
  /** DEFAULT_PLANS with the file's `plans` merged in (definePlans), when it has `plans`. */
  planTable?: PlanTable;
}

function configError(file: string, message: string, cause?: unknown): FileconvError {
  return new FileconvError('INVALID_OPTIONS', `Config file ${file}: ${message}`, {
    ...(cause === undefined ? {} : { cause }),
    details: { file },
  });
}

/** 'server.port' for a zod path; '(top level)' for the root. */
function pathText(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index ? '.' : ''}${String(key)}`))
    .join('');
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys
      .map((key) => `${pathText([...issue.path, key])} is not a setting (misspelt?)`)
      .join('; ');
  }
  return `${pathText(issue.path)}: ${issue.message}`;
}

/**
 * Reads and validates a config file. `engineNames` are the engines `engines.*` may name.
 * Relative `dataDir` is resolved against the file's directory, as a config file's paths are.
 * INVALID_OPTIONS naming the file and the field when it cannot be used.
 */
export async function loadConfigFile(path: string, engineNames: readonly string[]): Promise<ConfigFile> {
  const file = resolve(path);
  const raw = await readJsonFile(file, 'Config file');
  const parsed = configSchema(engineNames).safeParse(raw);
  if (!parsed.success) {
    throw configError(file, `${parsed.error.issues.slice(0, 5).map(issueText).join('; ')}.`, parsed.error);
  }
  const contents = parsed.data as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  for (const { name, path } of fileSettings()) {
    const [section, key] = path;
    const value =
      key === undefined
        ? contents[section]
        : (contents[section] as Record<string, unknown> | undefined)?.[key];
    if (value !== undefined) settings[name] = value;
  }
  let planTable: PlanTable | undefined;
  if (settings.plans !== undefined) {
    try {
      planTable = definePlans(settings.plans as Record<string, PlanOverride>);
    } catch (cause) {
      // definePlans names the plan and the field: 'definePlans: plan "free" field "..." must be ...'.
      const message = cause instanceof Error ? cause.message.replace(/^definePlans: /, '') : String(cause);
      throw configError(file, `plans: ${message}`, cause);
    }
    settings.plans = planTable;
  }
  if (typeof settings.data === 'string') settings.data = resolve(dirname(file), settings.data);
  return { file, settings: settings as ConfigFile['settings'], ...(planTable ? { planTable } : {}) };
}

/** Which config file applies, and what named it. */
export interface ConfigFileChoice {
  path: string;
  /** 'flag --config', 'env FILECONV_CONFIG' or 'found ./fileconv.config.json'. */
  from: string;
}

/**
 * --config, else $FILECONV_CONFIG, else ./fileconv.config.json when the working directory has
 * one (said in the start-up log and by `fileconv config check`), else none.
 */
export async function chooseConfigFile(
  flag: string | undefined,
  env?: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): Promise<ConfigFileChoice | undefined> {
  if (flag !== undefined) return { path: resolve(cwd, flag), from: 'flag --config' };
  const fromEnv = settingFromEnv('config', env);
  if (fromEnv) return { path: resolve(cwd, fromEnv.value), from: fromEnv.source };
  const found = resolve(cwd, DEFAULT_CONFIG_FILE);
  const exists = await access(found).then(
    () => true,
    () => false,
  );
  return exists ? { path: found, from: `found ./${DEFAULT_CONFIG_FILE}` } : undefined;
}
