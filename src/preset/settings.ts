/**
 * The settings of fileconv's service, in one table: every setting of `fileconv serve` and
 * `fileconv worker` (and what `createFileconv` reads from the environment) is one entry here.
 * An entry named `fooBar` is the flag `--foo-bar`, the variable `FILECONV_FOO_BAR` and the config
 * file key it names (one name, three spellings, as Gotenberg spells its settings), so the CLI's
 * options (bin/support/setting-options.ts), the config file's schema (config-file.ts), `fileconv config
 * check` and the README's table are all generated from it and cannot drift. Adding a setting is
 * adding an entry. Secrets are environment-only: never a flag (visible in `ps`) nor in the file.
 */
import type { z } from 'zod';
import {
  boolean,
  engineName,
  headerName,
  list,
  nonNegativeInteger,
  oneOf,
  optionalText,
  origins,
  plans,
  plansInFile,
  port,
  positiveInteger,
  positiveNumber,
  type SchemaContext,
  type SettingKind,
  text,
  trustProxy,
  url,
} from './setting-kinds.js';

/** The commands whose command line has a setting's flag. */
export type SettingCommand = 'serve' | 'worker' | 'keys';

export interface SettingSpec<T> {
  kind: SettingKind<T>;
  /** What it sets, one line: --help, the file's JSON Schema and the README say it. */
  help: string;
  /** --help of the flag shown when it is not `help`: a switch's `--no-x` says what it turns off. */
  flagHelp?: string;
  /** Its key in the config file ('server.port'); none for secrets and for --config itself. */
  file?: string;
  /** The file's schema when it differs from the flag's (plans: an object there, a path here). */
  fileSchema?: (context: SchemaContext) => z.ZodType;
  /** Its section of the file needs it (an `s3` section without a bucket means nothing). */
  requiredInSection?: true;
  /** The default as documentation says it, when the value alone does not ('from each request'). */
  defaultText?: string;
  /** A flag's one-letter form ('-p'). */
  short?: `-${string}`;
  commands: readonly SettingCommand[];
  /**
   * Older, unprefixed variables `fileconv serve` and `fileconv worker` still read, in this order,
   * after FILECONV_<NAME> (PORT, REDIS_URL...). The embedded preset never reads them: a host's
   * own REDIS_URL or AWS_REGION is the host's, not fileconv's.
   */
  legacyEnv?: readonly string[];
  /** `createFileconv` reads FILECONV_<NAME> when its own option is not given. */
  embedded?: true;
  /** Never printed; environment only. */
  secret?: true;
}

export interface SettingEntry<T, D extends T | undefined> extends SettingSpec<T> {
  default: D;
}

function setting<T, D extends T | undefined = undefined>(
  spec: SettingSpec<T> & { default?: D },
): SettingEntry<T, D> {
  return { ...spec, default: spec.default as D };
}

const ALL: readonly SettingCommand[] = ['serve', 'worker', 'keys'];
const SERVE: readonly SettingCommand[] = ['serve'];
const BOTH: readonly SettingCommand[] = ['serve', 'worker'];

export const SETTINGS = {
  config: setting({
    kind: text('<file>'),
    help: 'the JSON config file; flags and environment variables go before it',
    defaultText: './fileconv.config.json when present',
    commands: ALL,
  }),
  port: setting({
    kind: port,
    file: 'server.port',
    default: 3000,
    help: 'port to listen on',
    short: '-p',
    commands: SERVE,
    legacyEnv: ['PORT'],
  }),
  host: setting({
    kind: text('<host>'),
    file: 'server.host',
    default: '0.0.0.0',
    help: 'address to bind',
    commands: SERVE,
    legacyEnv: ['HOST'],
  }),
  publicUrl: setting({
    kind: url(['http', 'https']),
    file: 'server.publicUrl',
    defaultText: 'from each request',
    help: 'base URL clients reach the service at, for links behind a proxy',
    commands: SERVE,
  }),
  trustProxy: setting({
    kind: trustProxy,
    file: 'server.trustProxy',
    defaultText: 'none',
    help: "believe X-Forwarded-For from these proxies: true, a hop count, 'loopback', addresses or subnets",
    commands: SERVE,
  }),
  web: setting({
    kind: boolean,
    file: 'server.web',
    default: true,
    help: 'the web converter page at the root URL',
    flagHelp: 'API only: no web converter page at the root URL',
    commands: SERVE,
  }),
  log: setting({
    kind: boolean,
    file: 'server.log',
    default: true,
    help: 'one log line per request',
    flagHelp: 'no request log lines (job events and errors are still logged)',
    commands: SERVE,
  }),
  logFormat: setting({
    kind: oneOf(['json', 'pretty'], '<format>'),
    file: 'server.logFormat',
    defaultText: 'pretty on a terminal, else json',
    help: 'log format: json or pretty',
    commands: SERVE,
  }),
  convertTimeoutSeconds: setting({
    kind: positiveInteger('<s>'),
    file: 'server.convertTimeoutSeconds',
    default: 600,
    help: 'how long POST /api/convert waits for its conversion',
    commands: SERVE,
  }),
  maxQueuedJobs: setting({
    kind: positiveInteger('<n>'),
    file: 'server.maxQueuedJobs',
    defaultText: 'none: no bound',
    help: 'past this many jobs waiting in the queue, new jobs are refused (503 OVERLOADED, Retry-After) and charged nothing',
    commands: SERVE,
    embedded: true,
  }),
  metricsPort: setting({
    kind: port,
    file: 'metricsPort',
    defaultText: 'none',
    help: 'serve Prometheus metrics on this port (GET /metrics)',
    commands: BOTH,
  }),
  data: setting({
    kind: text('<dir>'),
    file: 'dataDir',
    default: 'data',
    defaultText: './data',
    help: "where files, jobs, keys and the signing secret live (in the config file: relative to the file's folder)",
    flagHelp: 'where files, jobs, keys and the signing secret live',
    short: '-d',
    commands: ALL,
    embedded: true,
  }),
  redisUrl: setting({
    kind: url(['redis', 'rediss']),
    file: 'redis.url',
    requiredInSection: true,
    defaultText: 'none: one machine',
    help: 'Redis for jobs, queue, limits and keys, shared by every node (a URL with a password belongs in the environment)',
    commands: ALL,
    legacyEnv: ['REDIS_URL'],
    embedded: true,
  }),
  s3Bucket: setting({
    kind: text('<name>'),
    file: 's3.bucket',
    requiredInSection: true,
    defaultText: 'none: files in the data dir',
    help: 'S3 bucket for files; credentials come from the AWS SDK (environment, instance role)',
    commands: BOTH,
    legacyEnv: ['S3_BUCKET'],
    embedded: true,
  }),
  s3Endpoint: setting({
    kind: url(['http', 'https']),
    file: 's3.endpoint',
    defaultText: 'AWS',
    help: 'S3-compatible endpoint (MinIO, R2...)',
    commands: BOTH,
    legacyEnv: ['S3_ENDPOINT'],
    embedded: true,
  }),
  s3Region: setting({
    kind: text('<region>'),
    file: 's3.region',
    default: 'us-east-1',
    help: "the bucket's region",
    commands: BOTH,
    legacyEnv: ['S3_REGION', 'AWS_REGION'],
    embedded: true,
  }),
  s3ForcePathStyle: setting({
    kind: boolean,
    file: 's3.forcePathStyle',
    default: false,
    help: 'path-style bucket URLs (MinIO...)',
    commands: BOTH,
    legacyEnv: ['S3_FORCE_PATH_STYLE'],
    embedded: true,
  }),
  s3Prefix: setting({
    kind: optionalText('<prefix>'),
    file: 's3.prefix',
    default: '',
    defaultText: 'none',
    help: 'key prefix inside the bucket',
    commands: BOTH,
    legacyEnv: ['S3_PREFIX'],
    embedded: true,
  }),
  plans: setting({
    kind: plans,
    file: 'plans',
    fileSchema: plansInFile,
    defaultText: 'the default plans',
    help: 'plan overrides merged into the default plans by name, e.g. {"free": {"conversionsPerDay": 100}} (a new plan gives every field); the flag and the variable name a JSON file of them',
    flagHelp:
      'a JSON file of plan overrides merged into the default plans, e.g. {"free":{"conversionsPerDay":100}}',
    commands: SERVE,
    embedded: true,
  }),
  limits: setting({
    kind: boolean,
    file: 'limits',
    default: true,
    help: 'rate limits and quotas; off for a deployment behind its own access control',
    flagHelp: 'no rate limits and no quotas, for an internal deployment behind its own auth',
    commands: SERVE,
    embedded: true,
  }),
  retentionHours: setting({
    kind: positiveNumber('<h>'),
    file: 'retention.resultsHours',
    default: 24,
    help: 'how long results are kept',
    commands: BOTH,
  }),
  uploadRetentionHours: setting({
    kind: positiveNumber('<h>'),
    file: 'retention.uploadsHours',
    default: 1,
    help: 'how long an upload waits for its conversion, for plans without their own uploadRetentionSeconds',
    commands: BOTH,
  }),
  engines: setting({
    kind: list(engineName, '<names>', 1),
    file: 'engines.enabled',
    defaultText: 'every engine',
    help: 'the only engines used, comma-separated (names as `fileconv doctor` lists them)',
    commands: BOTH,
  }),
  readyEngines: setting({
    kind: list(engineName, '<names>'),
    file: 'engines.requiredForReady',
    default: [],
    defaultText: 'none',
    help: 'engines GET /api/ready requires, e.g. sharp,libreoffice',
    commands: SERVE,
  }),
  readyTimeoutMs: setting({
    kind: positiveInteger('<ms>'),
    file: 'engines.readyTimeoutMs',
    default: 2000,
    help: 'how long each readiness check may take, ms',
    commands: SERVE,
  }),
  worker: setting({
    kind: boolean,
    file: 'workers.enabled',
    default: true,
    help: 'convert in the serve process; off: API only, workers run in `fileconv worker` (needs Redis)',
    flagHelp: 'API only: conversions run in `fileconv worker` processes (needs Redis)',
    commands: SERVE,
  }),
  concurrency: setting({
    kind: positiveInteger('<n>'),
    file: 'workers.concurrency',
    default: 2,
    help: 'conversions at once',
    short: '-c',
    commands: BOTH,
  }),
  graceSeconds: setting({
    kind: nonNegativeInteger('<s>'),
    file: 'workers.graceSeconds',
    default: 30,
    help: 'how long running conversions may finish on shutdown',
    commands: BOTH,
  }),
  queueLockMs: setting({
    kind: positiveInteger('<ms>'),
    file: 'queue.lockMs',
    default: 30_000,
    help: 'with Redis: how long a worker may go silent before its job is handed to another, ms',
    commands: BOTH,
    embedded: true,
  }),
  corsOrigins: setting({
    kind: origins,
    file: 'cors.origins',
    requiredInSection: true,
    defaultText: 'none: CORS off',
    help: 'browser apps on these origins may call the API: comma-separated (an array in the file), or "*"',
    commands: SERVE,
  }),
  corsCredentials: setting({
    kind: boolean,
    file: 'cors.credentials',
    defaultText: 'false',
    help: 'let pages send cookies or HTTP authentication',
    commands: SERVE,
  }),
  corsMaxAgeSeconds: setting({
    kind: nonNegativeInteger('<s>'),
    file: 'cors.maxAgeSeconds',
    defaultText: '600',
    help: 'how long a browser reuses a preflight answer',
    commands: SERVE,
  }),
  corsAllowHeaders: setting({
    kind: list(headerName, '<names>'),
    file: 'cors.allowHeaders',
    defaultText: 'none',
    help: "request headers pages may send beyond the service's own",
    commands: SERVE,
  }),
  webhookAllowPrivate: setting({
    kind: boolean,
    file: 'webhooks.allowPrivateAddresses',
    default: false,
    help: 'let webhooks reach private addresses (receivers on an intranet)',
    commands: BOTH,
    embedded: true,
  }),
  signingSecret: setting({
    kind: text('<secret>'),
    defaultText: 'kept in the data dir (signing-secret, created on first start)',
    help: 'signs upload and download URLs (32+ bytes, the same on every API node)',
    commands: [],
    embedded: true,
    secret: true,
  }),
  webhookSecret: setting({
    kind: text('<secret>'),
    defaultText: 'none: webhooks off',
    help: 'signs webhook deliveries and turns them on (whsec_ + base64 of 24+ random bytes, or 32+ bytes of text; the same on every node)',
    commands: [],
    embedded: true,
    secret: true,
  }),
} as const;

export type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
/** The value of setting N once resolved: its default's type when it has one, else possibly unset. */
export type SettingValue<N extends SettingName> =
  Settings[N] extends SettingEntry<infer T, infer D> ? (D extends undefined ? T | undefined : T) : never;

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** An entry, without its value's type (for code that walks the table). */
export function settingOf(name: SettingName): SettingSpec<unknown> & { default: unknown } {
  return SETTINGS[name] as SettingSpec<unknown> & { default: unknown };
}

/** 'corsMaxAgeSeconds' -> 'cors-max-age-seconds'. */
export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The long flag: '--cors-origins'. A switch that is on by default is shown as '--no-web'. */
export function flagOf(name: SettingName): string {
  const entry = settingOf(name);
  return `--${entry.kind.argument === undefined && entry.default === true ? 'no-' : ''}${kebabCase(name)}`;
}

/** The variable: 'FILECONV_CORS_ORIGINS'. */
export function envOf(name: SettingName): string {
  return `FILECONV_${kebabCase(name).replaceAll('-', '_').toUpperCase()}`;
}

/** The variables a setting is read from, in order; unprefixed ones only for the CLI (`legacy`). */
export function envNamesOf(name: SettingName, legacy: boolean): readonly string[] {
  const older = legacy ? (settingOf(name).legacyEnv ?? []) : [];
  return [envOf(name), ...older];
}

/** The default as the documentation says it. */
export function defaultTextOf(name: SettingName): string {
  const entry = settingOf(name);
  if (entry.defaultText !== undefined) return entry.defaultText;
  if (entry.default === undefined) return 'none';
  return Array.isArray(entry.default) ? entry.default.join(',') || 'none' : String(entry.default);
}
