/**
 * The settings `fileconv serve` and `fileconv worker` run with: every entry of the settings
 * table (settings.ts) taken from the first that gives it, a flag, an environment variable
 * (FILECONV_<NAME>, then the older PORT, REDIS_URL, S3_*...), the config file, the default.
 * Each setting records where it came from, so `fileconv config check` can say why a value is
 * what it is. Bad values fail here, before anything is opened, naming the flag, variable or
 * file field.
 */
import { resolve } from 'node:path';
import { FileconvError } from '../core/errors.js';
import { DEFAULT_PLANS, type PlanTable } from '../core/policy/plans.js';
import { type CorsOptions, createCorsPolicy } from '../service/cors.js';
import type { S3Settings } from './backends.js';
import { chooseConfigFile, loadConfigFile } from './config-file.js';
import { defaultConverters } from './converters.js';
import type { FileconvOptions } from './index.js';
import { loadPlansFile } from './limits-config.js';
import type { TrustProxySetting } from './setting-kinds.js';
import { resolveSetting } from './setting-sources.js';
import { type SettingName, type SettingValue, settingOf } from './settings.js';

export type { S3Settings } from './backends.js';
export type { TrustProxySetting } from './setting-kinds.js';

/**
 * What the `serve` and `worker` commands take on their command line, by setting name
 * (commander's names: `--public-url` is `publicUrl`): text as typed, or the value itself.
 * A switch only counts when it is not its default (`web: false` is `--no-web`).
 */
export type ConfigFlags = {
  [N in Exclude<SettingName, 'signingSecret' | 'webhookSecret'>]?: string | NonNullable<SettingValue<N>>;
};

/** A secret's state, never its value: `fileconv config check` prints it masked. */
export interface SecretState {
  /** 'env FILECONV_SIGNING_SECRET', or 'default' when not set. */
  source: string;
  /** Its length, when set. */
  characters: number | undefined;
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
    /** undefined: no bound on waiting jobs. */
    maxQueuedJobs: number | undefined;
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
  /** The shared queue (Redis): how long a silent worker keeps its job. */
  queue: { lockMs: number };
  cors: CorsOptions | undefined;
  webhooks: { allowPrivateAddresses: boolean };
  /** Whether the secrets are set, and where from; never their values. */
  secrets: { signingSecret: SecretState; webhookSecret: SecretState };
  /**
   * Where each setting came from, by its file key (or name, for the secrets): 'flag --port',
   * 'env PORT', 'file server.port', 'default'; `configFile` says what named the file.
   */
  sources: Record<string, string>;
}

/**
 * The effective settings for `flags`, the environment `vars` (default this process's) and the
 * config file they name. INVALID_OPTIONS naming the source of a value that cannot be used.
 */
export async function resolveConfig(
  flags: ConfigFlags,
  vars?: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): Promise<EffectiveConfig> {
  const engineNames = defaultConverters().map((converter) => converter.name);
  const context = { engineNames };
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const choice = await chooseConfigFile(config, vars, cwd);
  const file = choice ? await loadConfigFile(choice.path, engineNames) : undefined;
  const layers = { flags, env: { vars, legacy: true }, ...(file ? { file: file.settings } : {}) };
  const sources: Record<string, string> = {};
  if (choice) sources.configFile = choice.from;

  /** Setting `name`, its source recorded under its file key. */
  function get<N extends SettingName>(name: N): SettingValue<N> {
    const resolved = resolveSetting(name, layers, context);
    sources[settingOf(name).file ?? name] = resolved.source;
    return resolved.value;
  }
  function secret(name: 'signingSecret' | 'webhookSecret'): SecretState {
    const value = get(name);
    return { source: sources[name] ?? 'default', characters: value?.length };
  }

  const corsOrigins = get('corsOrigins');
  const corsCredentials = get('corsCredentials');
  const corsMaxAgeSeconds = get('corsMaxAgeSeconds');
  const corsAllowHeaders = get('corsAllowHeaders');
  const cors: CorsOptions | undefined =
    corsOrigins === undefined
      ? undefined
      : {
          origins: corsOrigins,
          // Given ones only: the service applies its own defaults to the rest.
          ...(corsCredentials === undefined ? {} : { credentials: corsCredentials }),
          ...(corsMaxAgeSeconds === undefined ? {} : { maxAgeSeconds: corsMaxAgeSeconds }),
          ...(corsAllowHeaders === undefined ? {} : { allowHeaders: corsAllowHeaders }),
        };
  if (cors !== undefined) checkCors(cors, sources['cors.origins'] ?? '', file?.file);

  // A flag or variable names a plans file; the config file's plans arrive merged (definePlans).
  const plansSetting = get('plans');
  const plans =
    plansSetting === undefined
      ? DEFAULT_PLANS
      : typeof plansSetting === 'string'
        ? await loadPlansFile(plansSetting)
        : (file?.planTable ?? DEFAULT_PLANS);

  const redisUrl = get('redisUrl');
  const bucket = get('s3Bucket');
  const s3Settings = {
    endpoint: get('s3Endpoint'),
    region: get('s3Region'),
    forcePathStyle: get('s3ForcePathStyle'),
    prefix: get('s3Prefix'),
  };
  const effective: EffectiveConfig = {
    configFile: file?.file,
    server: {
      port: get('port'),
      host: get('host'),
      publicUrl: get('publicUrl'),
      trustProxy: get('trustProxy'),
      web: get('web'),
      log: get('log'),
      logFormat: get('logFormat'),
      convertTimeoutSeconds: get('convertTimeoutSeconds'),
      maxQueuedJobs: get('maxQueuedJobs'),
    },
    metricsPort: get('metricsPort'),
    dataDir: resolve(cwd, get('data')),
    redis: redisUrl === undefined ? undefined : { url: redisUrl },
    s3:
      bucket === undefined
        ? undefined
        : {
            bucket,
            ...(s3Settings.endpoint === undefined ? {} : { endpoint: s3Settings.endpoint }),
            region: s3Settings.region,
            forcePathStyle: s3Settings.forcePathStyle,
            prefix: s3Settings.prefix,
          },
    plans,
    limits: get('limits'),
    retention: { resultsHours: get('retentionHours'), uploadsHours: get('uploadRetentionHours') },
    engines: {
      enabled: get('engines'),
      requiredForReady: get('readyEngines'),
      readyTimeoutMs: get('readyTimeoutMs'),
    },
    workers: { enabled: get('worker'), concurrency: get('concurrency'), graceSeconds: get('graceSeconds') },
    queue: { lockMs: get('queueLockMs') },
    cors,
    webhooks: { allowPrivateAddresses: get('webhookAllowPrivate') },
    secrets: { signingSecret: secret('signingSecret'), webhookSecret: secret('webhookSecret') },
    sources,
  };
  checkReadyEngines(effective, file?.file);
  return effective;
}

/** The CORS policy the service would build, refused here naming where its origins came from. */
function checkCors(cors: CorsOptions, from: string, file: string | undefined): void {
  try {
    createCorsPolicy(cors);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message.replace(/^fileconv HTTP: /, '') : String(cause);
    const where = from.startsWith('file ') ? `Config file ${file}` : from;
    throw new FileconvError('INVALID_OPTIONS', `${where}: ${message}`, { cause });
  }
}

/** Engines required for readiness must be enabled, or the service would never be ready. */
function checkReadyEngines(config: EffectiveConfig, file: string | undefined): void {
  const { enabled, requiredForReady } = config.engines;
  const left = enabled === undefined ? [] : requiredForReady.filter((name) => !enabled.includes(name));
  if (left.length === 0) return;
  const required = config.sources['engines.requiredForReady'] ?? '';
  const inFile = required.startsWith('file ');
  throw new FileconvError(
    'INVALID_OPTIONS',
    `${inFile ? `Config file ${file}: engines.requiredForReady` : required} requires ${left.join(', ')} for readiness, but engines.enabled does not enable ${left.length > 1 ? 'them' : 'it'}: the service would never be ready.`,
  );
}

/**
 * createFileconv's options for the effective settings (serve and worker alike; a host that
 * mounts the service in its own server can start from the same file). `extra` goes over them.
 * Everything resolved is given as an option, so createFileconv reads nothing more from the
 * environment than the secrets.
 */
export function fileconvOptionsOf(config: EffectiveConfig, extra: FileconvOptions = {}): FileconvOptions {
  const enabled = config.engines.enabled;
  return {
    dataDir: config.dataDir,
    plans: config.plans,
    limits: config.limits,
    ...(config.redis ? { redisUrl: config.redis.url } : {}),
    ...(config.s3 ? { s3Bucket: config.s3.bucket, s3: config.s3 } : {}),
    queueLockMs: config.queue.lockMs,
    ...(config.server.maxQueuedJobs === undefined ? {} : { maxQueuedJobs: config.server.maxQueuedJobs }),
    ...(enabled
      ? { converters: defaultConverters().filter((converter) => enabled.includes(converter.name)) }
      : {}),
    concurrency: config.workers.concurrency,
    resultTtlMs: Math.round(config.retention.resultsHours * 3_600_000),
    uploadTtlMs: Math.round(config.retention.uploadsHours * 3_600_000),
    // The secret itself stays in the environment, where createFileconv reads it.
    ...(config.secrets.webhookSecret.characters === undefined
      ? {}
      : { webhooks: { allowPrivateAddresses: config.webhooks.allowPrivateAddresses } }),
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
