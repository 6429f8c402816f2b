/**
 * The settings `createFileconv` runs with: each one from the option given in code, field by
 * field (`s3.region` in code beats $FILECONV_S3_REGION, whatever `s3.prefix` says), else its
 * FILECONV_ variable, else the default of the settings table. The embedded preset lives in a
 * host's process, whose environment is the host's: it reads no unprefixed variable (a platform's
 * REDIS_URL or AWS_REGION is for the host app, not for fileconv).
 */
import { FileconvError } from '../core/errors.js';
import type { PlanTable } from '../core/policy/plans.js';
import { webhookSigningKeys } from '../core/standard-webhooks.js';
import type { BackendSettings } from './backends.js';
import type { FileconvOptions, FileconvWebhookOptions } from './index.js';
import { loadPlansFile } from './limits-config.js';
import { embeddedLayers, resolveSetting } from './setting-sources.js';
import type { SettingName, SettingValue } from './settings.js';

export interface PresetSettings {
  /** As given: the caller makes it absolute. */
  dataDir: string;
  limits: boolean;
  /** undefined: the HTTP service's DEFAULT_PLANS. */
  plans: PlanTable | undefined;
  /** undefined: no bound on waiting jobs. */
  maxQueuedJobs: number | undefined;
  backends: BackendSettings;
  webhooks: (FileconvWebhookOptions & { secret: string; allowPrivateAddresses: boolean }) | undefined;
}

/** Setting `name`: `code` when given, else FILECONV_<NAME>, else the default. */
function setting<N extends SettingName>(name: N, code?: SettingValue<N>): SettingValue<N> {
  return resolveSetting(name, embeddedLayers(code === undefined ? {} : { [name]: code })).value;
}

/** Failed deliveries are said on stderr unless the host listens itself. */
function logFailedDelivery(report: Parameters<NonNullable<FileconvWebhookOptions['onDelivery']>>[0]): void {
  if (!report.ok) console.error(`fileconv: webhook for job ${report.jobId} failed: ${report.error}`);
}

function webhooksOf(option: FileconvOptions['webhooks']): PresetSettings['webhooks'] {
  if (option === false) return undefined;
  const secret = option?.secret ?? setting('webhookSecret');
  if (secret === undefined) {
    if (option === undefined) return undefined;
    throw new FileconvError(
      'INVALID_OPTIONS',
      'createFileconv: webhooks need a secret: give webhooks.secret or set FILECONV_WEBHOOK_SECRET.',
    );
  }
  try {
    webhookSigningKeys(secret);
  } catch (error) {
    // The dispatcher would refuse it too, but only this place knows where the secret came from.
    const from = option?.secret === undefined ? 'FILECONV_WEBHOOK_SECRET' : 'webhooks.secret';
    throw new FileconvError('INVALID_OPTIONS', `createFileconv: ${from}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    secret,
    allowPrivateAddresses: setting('webhookAllowPrivate', option?.allowPrivateAddresses),
    onDelivery: option?.onDelivery ?? logFailedDelivery,
  };
}

/**
 * The settings of `options`; INVALID_OPTIONS naming the variable when one cannot be used, and
 * the plans file's errors when $FILECONV_PLANS names a bad one.
 */
export async function presetSettings(options: FileconvOptions): Promise<PresetSettings> {
  const codePlans = options.plans ?? options.http?.plans;
  const plansFile = codePlans === undefined ? setting('plans') : undefined;
  const bucket = setting('s3Bucket', options.s3Bucket);
  const s3 = options.s3;
  return {
    dataDir: setting('data', options.dataDir),
    limits: setting('limits', options.limits),
    // A variable names a plans file (an object only comes from a config file, which this never reads).
    plans: codePlans ?? (typeof plansFile === 'string' ? await loadPlansFile(plansFile) : undefined),
    maxQueuedJobs: setting('maxQueuedJobs', options.maxQueuedJobs ?? options.http?.maxQueuedJobs),
    backends: {
      redisUrl: setting('redisUrl', options.redisUrl),
      s3:
        bucket === undefined
          ? undefined
          : {
              bucket,
              endpoint: setting('s3Endpoint', s3?.endpoint),
              region: setting('s3Region', s3?.region),
              forcePathStyle: setting('s3ForcePathStyle', s3?.forcePathStyle),
              prefix: setting('s3Prefix', s3?.prefix),
            },
      queueLockMs: setting('queueLockMs', options.queueLockMs),
    },
    webhooks: webhooksOf(options.webhooks),
  };
}
