/**
 * `fileconv config check`: the settings `fileconv serve` would run with, resolved exactly as it
 * resolves them (flags, environment, config file, defaults), printed as JSON with each one's
 * source and the secrets redacted. Invalid settings end it with the message serve would fail
 * with (the file, the field, what is expected) and exit code 1, so a deployment can check a
 * config file before it ships. `fileconv config schema` prints the file's JSON Schema.
 */
import { configJsonSchema } from '../../src/preset/config-file.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { type EffectiveConfig, resolveConfig } from '../../src/preset/effective-config.js';

export async function runConfigCheck(flags: { config?: string }): Promise<void> {
  const config = await resolveConfig(flags);
  // Unset settings print as null rather than vanish, so the output lists every setting there is.
  const text = JSON.stringify(printableConfig(config), (_key, value: unknown) => value ?? null, 2);
  process.stdout.write(`${text}\n`);
}

/** `fileconv config schema`: the config file's JSON Schema, for an editor's completion and checks. */
export function runConfigSchema(): void {
  const schema = configJsonSchema(defaultConverters().map((converter) => converter.name));
  process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
}

/** 'redis://user:secret@host:6379' -> 'redis://user:REDACTED@host:6379'. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === '') return url;
    parsed.password = 'REDACTED';
    return parsed.toString();
  } catch {
    return 'REDACTED';
  }
}

/**
 * The settings as `fileconv config check` prints them: secrets redacted (a password in the Redis
 * URL), where the secrets come from (never their values), and each setting's source.
 */
export function printableConfig(config: EffectiveConfig, vars: NodeJS.ProcessEnv = process.env): unknown {
  const { sources, ...settings } = config;
  const given = (name: string) => (vars[name] ?? '') !== '';
  return {
    ...settings,
    redis: settings.redis === undefined ? undefined : { url: redactUrl(settings.redis.url) },
    secrets: {
      signingSecret: given('FILECONV_SIGNING_SECRET')
        ? 'env FILECONV_SIGNING_SECRET (REDACTED)'
        : 'the data dir (signing-secret, created on first start)',
      webhookSecret: given('FILECONV_WEBHOOK_SECRET')
        ? 'env FILECONV_WEBHOOK_SECRET (REDACTED)'
        : 'not set: webhooks off',
    },
    sources,
  };
}
