/**
 * The settings `fileconv serve` and `fileconv worker` run with, each taken from the first that
 * gives it: a flag, an environment variable, the config file, the default. Each setting records
 * where it came from, so `fileconv config check` can say why a value is what it is. Bad values
 * fail here, before anything is opened, naming the flag, variable or file field.
 */
import { resolve } from 'node:path';
import { FileconvError } from '../core/errors.js';
import { DEFAULT_PLANS, type PlanTable } from '../core/policy/plans.js';
import { type CorsOptions, createCorsPolicy } from '../service/cors.js';
import { type ConfigFile, chooseConfigFile, loadConfigFile } from './config-file.js';
import { defaultConverters } from './converters.js';
import type { FileconvOptions } from './index.js';
import { limitsFromEnv, loadPlansFile } from './limits-config.js';

/** What the `serve` and `worker` commands take on their command line (commander's names). */
export interface ConfigFlags {
  /** The config file (default $FILECONV_CONFIG, else ./fileconv.config.json when present). */
  config?: string;
  port?: number;
  host?: string;
  data?: string;
  publicUrl?: string;
  concurrency?: number;
  /** false with --no-worker. */
  worker?: boolean;
  graceSeconds?: number;
  retentionHours?: number;
  trustProxy?: string;
  /** false with --no-log. */
  log?: boolean;
  logFormat?: string;
  /** false with --no-web. */
  web?: boolean;
  readyEngines?: string;
  metricsPort?: number;
  /** A JSON plans file. */
  plans?: string;
  /** false with --no-limits. */
  limits?: boolean;
  redisUrl?: string;
  s3Bucket?: string;
  /** Comma-separated origins, or '*'. */
  corsOrigins?: string;
}

export type TrustProxySetting = boolean | number | string | readonly string[];

export interface S3Settings {
  bucket: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
  prefix: string;
}

export interface EffectiveConfig {
  /** The config file read, if any. */
  configFile: string | undefined;
  server: {
    port: number;
    host: string;
    publicUrl: string | undefined;
    trustProxy: TrustProxySetting | undefined;
    web: boolean;
    log: boolean;
    logFormat: 'json' | 'pretty' | undefined;
    convertTimeoutSeconds: number;
  };
  metricsPort: number | undefined;
  dataDir: string;
  redis: { url: string } | undefined;
  s3: S3Settings | undefined;
  plans: PlanTable;
  limits: boolean;
  retention: { resultsHours: number; uploadsHours: number };
  /** `enabled` undefined: every engine fileconv ships. */
  engines: { enabled: string[] | undefined; requiredForReady: string[]; readyTimeoutMs: number };
  workers: { enabled: boolean; concurrency: number; graceSeconds: number };
  cors: CorsOptions | undefined;
  /** Where each setting came from, by path: 'flag --port', 'env PORT', 'file server.port', 'default'. */
  sources: Record<string, string>;
}

function env(vars: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = vars[name];
  return value === undefined || value === '' ? undefined : value;
}

function badVariable(name: string, expected: string, given: string): FileconvError {
  return new FileconvError('INVALID_OPTIONS', `${name} must be ${expected}, got ${JSON.stringify(given)}.`, {
    details: { variable: name, given },
  });
}

function portFromEnv(vars: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = env(vars, name);
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || parsed > 65_535) throw badVariable(name, 'a port number 0-65535', value);
  return parsed;
}

/** 'sharp, libreoffice' -> ['sharp', 'libreoffice']. */
export function namesOf(list: string | undefined): string[] | undefined {
  if (list === undefined) return undefined;
  return list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

/** `--trust-proxy` as typed: 'true', a hop count ('1'), or addresses/subnets/names ('loopback, 10.0.0.0/8'). */
export function parseTrustProxy(value: string | undefined): TrustProxySetting | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'false') return false;
  if (value === 'true') return true;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** '*' or a comma-separated list of origins. */
function originsOf(list: string | undefined): CorsOptions['origins'] | undefined {
  if (list === undefined || list.trim() === '') return undefined;
  return list.trim() === '*' ? '*' : (namesOf(list) ?? []);
}

/**
 * The effective settings for `flags`, the environment `vars` and the config file they name.
 * INVALID_OPTIONS naming the source of a value that cannot be used.
 */
export async function resolveConfig(
  flags: ConfigFlags,
  vars: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<EffectiveConfig> {
  const engineNames = defaultConverters().map((converter) => converter.name);
  const choice = await chooseConfigFile(flags.config, vars, cwd);
  const file: Partial<ConfigFile> = choice ? await loadConfigFile(choice.path, engineNames) : {};
  const sources: Record<string, string> = {};
  if (choice) sources.configFile = choice.from;

  /** The first defined candidate (recording its source), else `fallback` ('default'). */
  function pick<T>(key: string, candidates: readonly (readonly [string, T | undefined])[], fallback: T): T;
  function pick<T>(key: string, candidates: readonly (readonly [string, T | undefined])[]): T | undefined;
  function pick<T>(key: string, candidates: readonly (readonly [string, T | undefined])[], fallback?: T) {
    for (const [from, value] of candidates) {
      if (value !== undefined) {
        sources[key] = from;
        return value;
      }
    }
    if (fallback !== undefined) sources[key] = 'default';
    return fallback;
  }
  /** A negatable flag (--no-web): only its false was given; true is commander's default. */
  const negated = (value: boolean | undefined) => (value === false ? false : undefined);

  const server = file.server ?? {};
  const s3File = file.s3;
  const bucket = pick('s3.bucket', [
    ['flag --s3-bucket', flags.s3Bucket],
    ['env S3_BUCKET', env(vars, 'S3_BUCKET')],
    ['file s3.bucket', s3File?.bucket],
  ]);
  const redisUrl = pick('redis.url', [
    ['flag --redis-url', flags.redisUrl],
    ['env REDIS_URL', env(vars, 'REDIS_URL')],
    ['file redis.url', file.redis?.url],
  ]);
  const corsOrigins = pick('cors.origins', [
    ['flag --cors-origins', originsOf(flags.corsOrigins)],
    ['env FILECONV_CORS_ORIGINS', originsOf(env(vars, 'FILECONV_CORS_ORIGINS'))],
    ['file cors.origins', file.cors?.origins],
  ]);
  if (corsOrigins !== undefined) {
    try {
      createCorsPolicy({ origins: corsOrigins });
    } catch (cause) {
      const message = cause instanceof Error ? cause.message.replace(/^fileconv HTTP: /, '') : String(cause);
      const from = sources['cors.origins'] ?? '';
      const where = from.startsWith('file ') ? `Config file ${file.file}` : from;
      throw new FileconvError('INVALID_OPTIONS', `${where}: ${message}`, { cause });
    }
  }
  const plansFile = flags.plans ?? env(vars, 'FILECONV_PLANS');
  const plans = pick(
    'plans',
    [
      [
        flags.plans === undefined ? 'env FILECONV_PLANS' : 'flag --plans',
        plansFile === undefined ? undefined : await loadPlansFile(plansFile),
      ],
      ['file plans', file.planTable],
    ],
    DEFAULT_PLANS,
  );

  const config: EffectiveConfig = {
    configFile: file.file,
    server: {
      port: pick(
        'server.port',
        [
          ['flag --port', flags.port],
          ['env PORT', portFromEnv(vars, 'PORT')],
          ['file server.port', server.port],
        ],
        3000,
      ),
      host: pick(
        'server.host',
        [
          ['flag --host', flags.host],
          ['env HOST', env(vars, 'HOST')],
          ['file server.host', server.host],
        ],
        '0.0.0.0',
      ),
      publicUrl: pick('server.publicUrl', [
        ['flag --public-url', flags.publicUrl],
        ['env FILECONV_PUBLIC_URL', env(vars, 'FILECONV_PUBLIC_URL')],
        ['file server.publicUrl', server.publicUrl],
      ]),
      trustProxy: pick('server.trustProxy', [
        ['flag --trust-proxy', parseTrustProxy(flags.trustProxy)],
        ['env FILECONV_TRUST_PROXY', parseTrustProxy(env(vars, 'FILECONV_TRUST_PROXY'))],
        ['file server.trustProxy', server.trustProxy],
      ]),
      web: pick(
        'server.web',
        [
          ['flag --no-web', negated(flags.web)],
          ['file server.web', server.web],
        ],
        true,
      ),
      log: pick(
        'server.log',
        [
          ['flag --no-log', negated(flags.log)],
          ['file server.log', server.log],
        ],
        true,
      ),
      logFormat: pick('server.logFormat', [
        ['flag --log-format', flags.logFormat as 'json' | 'pretty' | undefined],
        ['file server.logFormat', server.logFormat],
      ]),
      convertTimeoutSeconds: pick(
        'server.convertTimeoutSeconds',
        [['file server.convertTimeoutSeconds', server.convertTimeoutSeconds]],
        600,
      ),
    },
    metricsPort: pick('metricsPort', [
      ['flag --metrics-port', flags.metricsPort],
      ['file metricsPort', file.metricsPort],
    ]),
    dataDir: resolve(
      cwd,
      pick(
        'dataDir',
        [
          ['flag --data', flags.data],
          ['env FILECONV_DATA', env(vars, 'FILECONV_DATA')],
          ['file dataDir', file.dataDir],
        ],
        'data',
      ),
    ),
    redis: redisUrl === undefined ? undefined : { url: redisUrl },
    s3:
      bucket === undefined
        ? undefined
        : {
            bucket,
            endpoint: pick('s3.endpoint', [
              ['env S3_ENDPOINT', env(vars, 'S3_ENDPOINT')],
              ['file s3.endpoint', s3File?.endpoint],
            ]),
            region: pick(
              's3.region',
              [
                ['env S3_REGION', env(vars, 'S3_REGION')],
                ['env AWS_REGION', env(vars, 'AWS_REGION')],
                ['file s3.region', s3File?.region],
              ],
              'us-east-1',
            ),
            forcePathStyle: pick(
              's3.forcePathStyle',
              [
                [
                  'env S3_FORCE_PATH_STYLE',
                  env(vars, 'S3_FORCE_PATH_STYLE') === undefined
                    ? undefined
                    : env(vars, 'S3_FORCE_PATH_STYLE') === 'true',
                ],
                ['file s3.forcePathStyle', s3File?.forcePathStyle],
              ],
              false,
            ),
            prefix: pick(
              's3.prefix',
              [
                ['env S3_PREFIX', env(vars, 'S3_PREFIX')],
                ['file s3.prefix', s3File?.prefix],
              ],
              '',
            ),
          },
    plans,
    limits: pick(
      'limits',
      [
        ['flag --no-limits', negated(flags.limits)],
        [
          'env FILECONV_LIMITS',
          env(vars, 'FILECONV_LIMITS') === undefined
            ? undefined
            : limitsFromEnv(env(vars, 'FILECONV_LIMITS')),
        ],
        ['file limits', file.limits],
      ],
      true,
    ),
    retention: {
      resultsHours: pick(
        'retention.resultsHours',
        [
          ['flag --retention-hours', flags.retentionHours],
          ['file retention.resultsHours', file.retention?.resultsHours],
        ],
        24,
      ),
      uploadsHours: pick(
        'retention.uploadsHours',
        [['file retention.uploadsHours', file.retention?.uploadsHours]],
        1,
      ),
    },
    engines: {
      enabled: pick('engines.enabled', [['file engines.enabled', file.engines?.enabled]]),
      requiredForReady: pick(
        'engines.requiredForReady',
        [
          ['flag --ready-engines', namesOf(flags.readyEngines)],
          ['env FILECONV_READY_ENGINES', namesOf(env(vars, 'FILECONV_READY_ENGINES'))],
          ['file engines.requiredForReady', file.engines?.requiredForReady],
        ],
        [],
      ),
      readyTimeoutMs: pick(
        'engines.readyTimeoutMs',
        [['file engines.readyTimeoutMs', file.engines?.readyTimeoutMs]],
        2000,
      ),
    },
    workers: {
      enabled: pick(
        'workers.enabled',
        [
          ['flag --no-worker', negated(flags.worker)],
          ['file workers.enabled', file.workers?.enabled],
        ],
        true,
      ),
      concurrency: pick(
        'workers.concurrency',
        [
          ['flag --concurrency', flags.concurrency],
          ['file workers.concurrency', file.workers?.concurrency],
        ],
        2,
      ),
      graceSeconds: pick(
        'workers.graceSeconds',
        [
          ['flag --grace-seconds', flags.graceSeconds],
          ['file workers.graceSeconds', file.workers?.graceSeconds],
        ],
        30,
      ),
    },
    cors:
      corsOrigins === undefined
        ? undefined
        : {
            origins: corsOrigins,
            // Only the file says more than the origins; a flag's or variable's origins take them too.
            ...(file.cors?.credentials === undefined ? {} : { credentials: file.cors.credentials }),
            ...(file.cors?.maxAgeSeconds === undefined ? {} : { maxAgeSeconds: file.cors.maxAgeSeconds }),
            ...(file.cors?.allowHeaders === undefined ? {} : { allowHeaders: file.cors.allowHeaders }),
          },
    sources,
  };
  const { enabled, requiredForReady } = config.engines;
  const left = enabled === undefined ? [] : requiredForReady.filter((name) => !enabled.includes(name));
  if (left.length > 0) {
    const required = sources['engines.requiredForReady'] ?? '';
    const inFile = required.startsWith('file ');
    throw new FileconvError(
      'INVALID_OPTIONS',
      `${inFile ? `Config file ${file.file}: engines.requiredForReady` : required} requires ${left.join(', ')} for readiness, but engines.enabled does not enable ${left.length > 1 ? 'them' : 'it'}: the service would never be ready.`,
    );
  }
  return config;
}

/**
 * createFileconv's options for the effective settings (serve and worker alike; a host that
 * mounts the service in its own server can start from the same file). `extra` goes over them.
 */
export function fileconvOptionsOf(config: EffectiveConfig, extra: FileconvOptions = {}): FileconvOptions {
  const enabled = config.engines.enabled;
  return {
    dataDir: config.dataDir,
    plans: config.plans,
    limits: config.limits,
    ...(config.redis ? { redisUrl: config.redis.url } : {}),
    ...(config.s3 ? { s3Bucket: config.s3.bucket, s3: config.s3 } : {}),
    ...(enabled
      ? { converters: defaultConverters().filter((converter) => enabled.includes(converter.name)) }
      : {}),
    concurrency: config.workers.concurrency,
    resultTtlMs: Math.round(config.retention.resultsHours * 3_600_000),
    uploadTtlMs: Math.round(config.retention.uploadsHours * 3_600_000),
    http: {
      ...(config.server.publicUrl === undefined ? {} : { publicUrl: config.server.publicUrl }),
      ...(config.server.trustProxy === undefined ? {} : { trustProxy: config.server.trustProxy }),
      ...(config.cors === undefined ? {} : { cors: config.cors }),
      webConverter: config.server.web,
      convertTimeoutMs: config.server.convertTimeoutSeconds * 1000,
      readiness: {
        requiredConverters: config.engines.requiredForReady,
        timeoutMs: config.engines.readyTimeoutMs,
      },
    },
    ...extra,
  };
}
