/**
 * The command-line options of `fileconv serve`, `worker`, `keys` and `config check`, generated
 * from the settings table (src/preset/settings.ts): one option per setting of the command, its
 * flag, argument, help, variables and default all taken from the entry, so a setting has a flag
 * exactly when the table says so and the CLI cannot drift from the table. Values reach
 * resolveConfig as typed (text), where the table checks them like a variable's.
 */
import { type Command, Option } from 'commander';
import type { ConfigFlags } from '../../src/preset/effective-config.js';
import {
  defaultTextOf,
  envNamesOf,
  flagOf,
  SETTING_NAMES,
  type SettingCommand,
  type SettingName,
  settingOf,
} from '../../src/preset/settings.js';

/** "--port <port>" with its short form: "-p, --port <port>". */
function flagsText(name: SettingName): string {
  const entry = settingOf(name);
  const long = `${flagOf(name)}${entry.kind.argument === undefined ? '' : ` ${entry.kind.argument}`}`;
  return entry.short ? `${entry.short}, ${long}` : long;
}

/** 'port to listen on ($FILECONV_PORT or $PORT; default 3000)'. */
function helpText(name: SettingName): string {
  const entry = settingOf(name);
  const variables = envNamesOf(name, true)
    .map((variable) => `$${variable}`)
    .join(' or ');
  const isSwitch = entry.kind.argument === undefined;
  return `${entry.flagHelp ?? entry.help} (${variables}${isSwitch ? '' : `; default ${defaultTextOf(name)}`})`;
}

/** The table's settings whose flags `command` takes, in the table's order. */
export function settingsOfCommand(command: SettingCommand): SettingName[] {
  return SETTING_NAMES.filter((name) => settingOf(name).commands.includes(command));
}

/** Adds the options of `names` to `command`. */
export function addSettingOptions(command: Command, names: readonly SettingName[]): Command {
  for (const name of names) command.addOption(new Option(flagsText(name), helpText(name)));
  return command;
}

/**
 * The settings given on the command line, by name: commander's defaults (a switch's `true`
 * for --no-web) left out, so they never hide a variable or the config file.
 */
export function givenSettings(command: Command): ConfigFlags {
  const options = command.opts<Record<string, unknown>>();
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (command.getOptionValueSource(key) === 'cli') given[key] = value;
  }
  return given as ConfigFlags;
}
