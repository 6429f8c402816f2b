/**
 * Where a setting's value comes from, in one order for every setting: options given in code
 * (createFileconv's), then a flag, then the environment (FILECONV_<NAME>, then, for the CLI
 * only, the older unprefixed variable), then the config file, then the default. Each value
 * records its source ('code', 'flag --port', 'env PORT', 'file server.port', 'default') for
 * `fileconv config check`. This module is the only reader of the service's environment.
 */

import { checkSettingValue, type SchemaContext } from './setting-kinds.js';
import { envNamesOf, flagOf, type SettingName, type SettingValue, settingOf } from './settings.js';

export type SettingValues = { [N in SettingName]?: unknown };

export interface SettingLayers {
  /** Options given in code, by setting: used as they are. */
  code?: { [N in SettingName]?: SettingValue<N> | undefined };
  /** The command line, by setting: text as typed (checked here), or values from a caller. */
  flags?: SettingValues;
  /**
   * The environment (`vars`, default this process's); `legacy`: the CLI also reads the older
   * unprefixed variables (PORT...).
   */
  env?: { vars?: NodeJS.ProcessEnv | undefined; legacy: boolean };
  /** The config file's values, by setting (its schema has checked them). */
  file?: SettingValues;
}

export interface ResolvedSetting<T> {
  value: T;
  /** 'code', 'flag --port', 'env PORT', 'file server.port' or 'default'. */
  source: string;
}

/** A variable's text, unset when empty (`FOO=` in a unit file means "not given"). */
function textOf(vars: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = vars[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The layers of the embedded preset (`createFileconv`): the options given in code, then the
 * FILECONV_ variables of this process; never the unprefixed ones, which belong to the host app.
 */
export function embeddedLayers(code: SettingLayers['code']): SettingLayers {
  return { ...(code ? { code } : {}), env: { legacy: false } };
}

/** The first variable of `name` set in `vars` (FILECONV_<NAME>, then the older ones with `legacy`). */
export function settingFromEnv<N extends SettingName>(
  name: N,
  vars?: NodeJS.ProcessEnv,
  legacy = false,
  context: SchemaContext = { engineNames: [] },
): ResolvedSetting<NonNullable<SettingValue<N>>> | undefined {
  for (const variable of envNamesOf(name, legacy)) {
    const given = textOf(vars ?? process.env, variable);
    if (given === undefined) continue;
    const value = checkSettingValue(settingOf(name).kind, given, variable, context) as NonNullable<
      SettingValue<N>
    >;
    return { value, source: `env ${variable}` };
  }
  return undefined;
}

/** Setting `name` from the first layer that gives it, else its default. */
export function resolveSetting<N extends SettingName>(
  name: N,
  layers: SettingLayers,
  context: SchemaContext = { engineNames: [] },
): ResolvedSetting<SettingValue<N>> {
  const entry = settingOf(name);
  const fromCode = layers.code?.[name];
  if (fromCode !== undefined) return { value: fromCode as SettingValue<N>, source: 'code' };
  const fromFlag = layers.flags?.[name];
  if (fromFlag !== undefined) {
    const label = flagOf(name);
    const value = checkSettingValue(entry.kind, fromFlag, label, context) as SettingValue<N>;
    // A switch only sets the value that is not its default (`--no-web`, `--s3-force-path-style`):
    // its default is commander's value when the flag is absent, which is no flag at all.
    const isSwitch = entry.kind.argument === undefined;
    if (!isSwitch || value !== (entry.default ?? false)) return { value, source: `flag ${label}` };
  }
  const fromEnv = layers.env && settingFromEnv(name, layers.env.vars, layers.env.legacy, context);
  if (fromEnv) return fromEnv;
  const fromFile = layers.file?.[name];
  if (fromFile !== undefined) return { value: fromFile as SettingValue<N>, source: `file ${entry.file}` };
  return { value: entry.default as SettingValue<N>, source: 'default' };
}
