/**
 * The configuration file of `fileconv serve` and `fileconv worker`: one JSON file holding what
 * flags and environment variables otherwise say (server, data dir, Redis and S3, plans, limits,
 * retention, engines, workers, CORS), for a deployment that keeps its settings in one reviewed
 * place. Named by --config or $FILECONV_CONFIG, else ./fileconv.config.json when it exists.
 * Validated at start with strict schemas, so a misspelt key fails instead of being ignored,
 * naming the file, the field's path and what was expected. Secrets never belong in it: the
 * signing and webhook secrets stay in environment variables.
 */
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { FileconvError } from '../core/errors.js';
import { definePlans, type PlanOverride, type PlanTable } from '../core/policy/plans.js';
import { readJsonFile } from './limits-config.js';

/** The name picked up from the working directory when neither --config nor $FILECONV_CONFIG is given. */
export const DEFAULT_CONFIG_FILE = 'fileconv.config.json';

const port = z.int().min(0).max(65_535);
const positiveInt = z.int().positive();
const nonEmpty = z.string().min(1);

/** `schema`, optional, described (with its default) for the JSON Schema editors show. */
function opt<T extends z.ZodType>(schema: T, description: string) {
  return schema.optional().meta({ description });
}

/** The file's shape; every field is optional, every object strict. */
function configSchema(engineNames: readonly string[]) {
  const engineName = z.enum(engineNames as [string, ...string[]], {
    error: (issue) =>
      `unknown engine ${JSON.stringify(issue.input)}: expected one of ${engineNames.join(', ')}`,
  });
  return z.strictObject({
    $schema: opt(
      z.string(),
      'The JSON Schema of this file (`fileconv config schema`), for editors; ignored.',
    ),
    server: opt(
      z.strictObject({
        port: opt(port, 'Port to listen on. Default 3000 ($PORT, --port).'),
        host: opt(nonEmpty, 'Address to bind. Default 0.0.0.0 ($HOST, --host).'),
        publicUrl: opt(
          z.url({ protocol: /^https?$/ }),
          'Base URL clients reach the service at, for links behind a proxy. Default: from each request.',
        ),
        trustProxy: opt(
          z.union([z.boolean(), z.int().nonnegative(), nonEmpty, z.array(nonEmpty).min(1)]),
          "Proxies whose X-Forwarded-For is believed: true, a hop count, 'loopback', addresses or subnets. Default none.",
        ),
        web: opt(z.boolean(), 'The web converter page at the root URL. Default true.'),
        log: opt(z.boolean(), 'One log line per request. Default true.'),
        logFormat: opt(z.enum(['json', 'pretty']), 'Log format. Default: pretty on a terminal, else json.'),
        convertTimeoutSeconds: opt(
          positiveInt,
          'How long POST /api/convert waits for its conversion. Default 600.',
        ),
      }),
      'The HTTP server of `fileconv serve`.',
    ),
    metricsPort: opt(port, 'Serve Prometheus metrics (GET /metrics) on this port. Default: none.'),
    dataDir: opt(
      nonEmpty,
      "Files, jobs, keys and the signing secret; relative to this file's folder. Default ./data ($FILECONV_DATA).",
    ),
    redis: opt(
      z.strictObject({ url: z.url({ protocol: /^rediss?$/ }) }),
      'Redis for jobs, queue, limits and keys, shared by every node. A URL with a password belongs in $REDIS_URL.',
    ),
    s3: opt(
      z.strictObject({
        bucket: nonEmpty,
        endpoint: opt(z.url({ protocol: /^https?$/ }), 'S3-compatible endpoint. Default AWS ($S3_ENDPOINT).'),
        region: opt(nonEmpty, 'Default us-east-1 ($S3_REGION, $AWS_REGION).'),
        forcePathStyle: opt(
          z.boolean(),
          'Path-style bucket URLs (MinIO...). Default false ($S3_FORCE_PATH_STYLE).',
        ),
        prefix: opt(z.string(), 'Key prefix inside the bucket. Default none ($S3_PREFIX).'),
      }),
      'S3 bucket for files; credentials come from the AWS SDK (environment, instance role).',
    ),
    plans: opt(
      z.record(z.string(), z.unknown()),
      'Plan overrides merged into the default plans by name, e.g. {"free": {"conversionsPerDay": 100}}; a new plan gives every field.',
    ),
    limits: opt(
      z.boolean(),
      'Rate limits and quotas. Default true; false for a deployment behind its own access control.',
    ),
    retention: opt(
      z.strictObject({
        resultsHours: opt(z.number().positive(), 'How long results are kept. Default 24.'),
        uploadsHours: opt(
          z.number().positive(),
          'How long an upload waits for its conversion, for plans without uploadRetentionSeconds. Default 1.',
        ),
      }),
      'How long files are kept.',
    ),
    engines: opt(
      z.strictObject({
        enabled: opt(
          z.array(engineName).min(1),
          'The only engines used (names as `fileconv doctor` lists them). Default every engine.',
        ),
        requiredForReady: opt(z.array(engineName), 'Engines GET /api/ready requires. Default none.'),
        readyTimeoutMs: opt(positiveInt, 'How long each readiness check may take, ms. Default 2000.'),
      }),
      'The conversion engines.',
    ),
    workers: opt(
      z.strictObject({
        enabled: opt(
          z.boolean(),
          'Convert in the serve process. Default true; false needs Redis (workers elsewhere).',
        ),
        concurrency: opt(positiveInt, 'Conversions at once. Default 2.'),
        graceSeconds: opt(
          z.int().nonnegative(),
          'How long running conversions may finish on shutdown. Default 30.',
        ),
      }),
      'The conversion workers.',
    ),
    cors: opt(
      z.strictObject({
        origins: z
          .union([z.literal('*'), z.array(nonEmpty)])
          .meta({ description: 'Origins whose pages may call the API (https://app.example.com), or "*".' }),
        credentials: opt(z.boolean(), 'Let pages send cookies or HTTP authentication. Default false.'),
        maxAgeSeconds: opt(
          z.int().nonnegative(),
          'How long a browser reuses a preflight answer. Default 600.',
        ),
        allowHeaders: opt(
          z.array(z.string().regex(/^[\w-]+$/)),
          "Request headers pages may send beyond the service's own. Default none.",
        ),
      }),
      'CORS for browser apps on other origins. Default off.',
    ),
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
  const raw = await readJsonFile(file, 'Config file');
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
