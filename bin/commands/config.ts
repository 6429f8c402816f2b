/**
 * `fileconv config check`: the settings `fileconv serve` would run with, resolved exactly as it
 * resolves them (flags, environment, config file, defaults), printed as JSON: the settings as
 * serve uses them, then `settings`, every entry of the settings table with its value, its source
 * ('flag --port', 'env PORT', 'file server.port', 'default') and its three spellings, secrets
 * masked. Invalid settings end it with the message serve would fail with (the file, the field,
 * what is expected) and exit code 1, so a deployment can check a config file before it ships.
 * `fileconv config schema` prints the file's JSON Schema.
 */
import { configJsonSchema } from '../../src/preset/config-file.js';
import { defaultConverters } from '../../src/preset/converters.js';
import { type ConfigFlags, type EffectiveConfig, resolveConfig } from '../../src/preset/effective-config.js';
import { envNamesOf, flagOf, SETTING_NAMES, settingOf } from '../../src/preset/settings.js';

export async function runConfigCheck(flags: ConfigFlags): Promise<void> {
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

/** A secret as printed: whether it is set and how long, never a character of it. */
function maskedSecret(characters: number | undefined): string | undefined {
  return characters === undefined ? undefined : `REDACTED (${characters} characters)`;
}

/** A value at a dotted path of the effective config ('server.port'). */
function valueAt(config: EffectiveConfig, path: string): unknown {
  let value: unknown = config;
  for (const key of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

/** Every setting of the table: its value as serve uses it, where it came from, how to set it. */
function settingsView(config: EffectiveConfig): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const entry = settingOf(name);
    const key = entry.file ?? name;
    let value: unknown;
    if (name === 'signingSecret' || name === 'webhookSecret') {
      value = maskedSecret(config.secrets[name].characters);
    } else if (name === 'config') {
      value = config.configFile;
    } else if (name === 'plans') {
      value = Object.keys(config.plans); // the table itself is printed above
    } else if (name === 'redisUrl') {
      value = config.redis && redactUrl(config.redis.url);
    } else {
      // The file's keys are the effective config's paths (s3.* are unset without a bucket).
      value = valueAt(config, key);
    }
    view[key] = {
      value,
      source: name === 'config' ? config.sources.configFile : config.sources[key],
      ...(entry.commands.length > 0 ? { flag: flagOf(name) } : {}),
      env: envNamesOf(name, true),
      ...(entry.file ? { file: entry.file } : {}),
    };
  }
  return view;
}

/**
 * The settings as `fileconv config check` prints them: secrets redacted (a password in the Redis
 * URL, the signing and webhook secrets), and every setting with its source.
 */
export function printableConfig(config: EffectiveConfig): unknown {
  const { sources, secrets, ...settings } = config;
  return {
    ...settings,
    redis: settings.redis === undefined ? undefined : { url: redactUrl(settings.redis.url) },
    secrets: {
      signingSecret:
        secrets.signingSecret.characters === undefined
          ? 'the data dir (signing-secret, created on first start)'
          : `${secrets.signingSecret.source} (REDACTED)`,
      webhookSecret:
        secrets.webhookSecret.characters === undefined
          ? 'not set: webhooks off'
          : `${secrets.webhookSecret.source} (REDACTED)`,
    },
    settings: settingsView(config),
    sources,
  };
}
