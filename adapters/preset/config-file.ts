/**
 * The configuration file of `fileconv serve` and `fileconv worker`: one JSON file holding what
 * flags and environment variables otherwise say (server, data dir, Redis and S3, plans, limits,
 * retention, engines, workers, CORS), for a deployment that keeps its settings in one reviewed
 * place. Named by --config or $FILECONV_CONFIG, else ./fileconv.config.json when it exists.
 * Validated at start with strict schemas, so a misspelt key fails instead of being ignored,
 * naming the file, the field's path and what was expected. Secrets never belong in it: the
 * signing and webhook secrets stay in environment variables.
 */
import { access, readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { FileconvError } from '../../src/errors.js';
import { definePlans, type PlanOverride, type PlanTable } from '../../src/policy/plans.js';

/** The name picked up from the working directory when neither --config nor $FILECONV_CONFIG is given. */
export const DEFAULT_CONFIG_FILE = 'fileconv.config.json';

const port = z.int().min(0).max(65_535);
const positiveInt = z.int().positive();
const nonEmpty = z.string().min(1);

/** The file's shape; every field is optional, every object strict. */
function configSchema(engineNames: readonly string[]) {
  const engineName = z.enum(engineNames as [string, ...string[]], {
    error: (issue) =>
      `unknown engine ${JSON.stringify(issue.input)}: expected one of ${engineNames.join(', ')}`,
  });
  return z.strictObject({
    /** Editors' JSON Schema reference; ignored. */
    $schema: z.string().optional(),
    server: z
      .strictObject({
        port: port.optional(),
        host: nonEmpty.optional(),
        publicUrl: z.url({ protocol: /^https?$/ }).optional(),
        trustProxy: z
          .union([z.boolean(), z.int().nonnegative(), nonEmpty, z.array(nonEmpty).min(1)])
          .optional(),
        web: z.boolean().optional(),
        log: z.boolean().optional(),
        logFormat: z.enum(['json', 'pretty']).optional(),
        convertTimeoutSeconds: positiveInt.optional(),
      })
      .optional(),
    metricsPort: port.optional(),
    dataDir: nonEmpty.optional(),
    redis: z.strictObject({ url: z.url({ protocol: /^rediss?$/ }) }).optional(),
    s3: z
      .strictObject({
        bucket: nonEmpty,
        endpoint: z.url({ protocol: /^https?$/ }).optional(),
        region: nonEmpty.optional(),
        forcePathStyle: z.boolean().optional(),
        prefix: z.string().optional(),
      })
      .optional(),
    plans: z.record(z.string(), z.unknown()).optional(),
    limits: z.boolean().optional(),
    retention: z
      .strictObject({
        resultsHours: z.number().positive().optional(),
        uploadsHours: z.number().positive().optional(),
      })
      .optional(),
    engines: z
      .strictObject({
        enabled: z.array(engineName).min(1).optional(),
        requiredForReady: z.array(engineName).optional(),
        readyTimeoutMs: positiveInt.optional(),
      })
      .optional(),
    workers: z
      .strictObject({
        enabled: z.boolean().optional(),
        concurrency: positiveInt.optional(),
        graceSeconds: z.int().nonnegative().optional(),
      })
      .optional(),
    cors: z
      .strictObject({
        origins: z.union([z.literal('*'), z.array(nonEmpty)]),
        credentials: z.boolean().optional(),
        maxAgeSeconds: z.int().nonnegative().optional(),
        allowHeaders: z.array(z.string().regex(/^[\w-]+$/)).optional(),
      })
      .optional(),
  });
}

/** The file's JSON Schema, for editors (`"$schema"`): `fileconv config schema`. */
export function configJsonSchema(engineNames: readonly string[]): unknown {
  return z.toJSONSchema(configSchema(engineNames), { io: 'input' });
}

export type ConfigFileContents = Omit<z.infer<ReturnType<typeof configSchema>>, 'plans'>;

/** A loaded, validated config file: its settings, the plan table its `plans` make, and where it is. */
export interface ConfigFile extends ConfigFileContents {
  /** Absolute path of the file. */
  file: string;
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
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(cause);
    throw configError(file, `cannot be read (${reason}).`, cause);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw configError(
      file,
      `not valid JSON (${cause instanceof Error ? cause.message : String(cause)}).`,
      cause,
    );
  }
  const parsed = configSchema(engineNames).safeParse(raw);
  if (!parsed.success) {
    throw configError(file, `${parsed.error.issues.slice(0, 5).map(issueText).join('; ')}.`, parsed.error);
  }
  const { plans, ...settings } = parsed.data;
  let planTable: PlanTable | undefined;
  if (plans !== undefined) {
    try {
      planTable = definePlans(plans as Record<string, PlanOverride>);
    } catch (cause) {
      // definePlans names the plan and the field: 'definePlans: plan "free" field "..." must be ...'.
      const message = cause instanceof Error ? cause.message.replace(/^definePlans: /, '') : String(cause);
      throw configError(file, `plans: ${message}`, cause);
    }
  }
  return {
    ...settings,
    ...(settings.dataDir === undefined ? {} : { dataDir: resolve(dirname(file), settings.dataDir) }),
    ...(planTable ? { planTable } : {}),
    file,
  };
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
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<ConfigFileChoice | undefined> {
  if (flag !== undefined) return { path: resolve(cwd, flag), from: 'flag --config' };
  const fromEnv = env.FILECONV_CONFIG;
  if (fromEnv !== undefined && fromEnv !== '')
    return { path: resolve(cwd, fromEnv), from: 'env FILECONV_CONFIG' };
  const found = resolve(cwd, DEFAULT_CONFIG_FILE);
  const exists = await access(found).then(
    () => true,
    () => false,
  );
  return exists ? { path: found, from: `found ./${DEFAULT_CONFIG_FILE}` } : undefined;
}
