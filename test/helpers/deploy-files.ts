/**
 * What the deployment files (compose.yaml, deploy/kubernetes/) are checked against, taken from
 * the code rather than copied: the settings' variables and flags (src/preset/settings.ts), the
 * API's routes (the OpenAPI operations, which a test keeps equal to the routes), the metrics
 * path and the port `fileconv serve` listens on by default.
 */
import { join } from 'node:path';
import { METRICS_PATH } from '../../src/adapters/metrics/metrics-endpoint.js';
import {
  envOf,
  flagOf,
  SETTING_NAMES,
  SETTINGS,
  type SettingCommand,
  settingOf,
} from '../../src/preset/settings.js';
import { OPERATIONS } from '../../src/service/openapi-operations.js';

export const ROOT = join(import.meta.dirname, '..', '..');

/** The port the image's `fileconv serve` listens on: the setting's default (PORT is not set there). */
export const SERVE_PORT = SETTINGS.port.default;

/** The image's data dir (the Dockerfile's FILECONV_DATA and VOLUME). */
export const IMAGE_DATA_DIR = '/data';

export { METRICS_PATH };

/** Every FILECONV_ variable a setting is read from. */
export const SETTING_VARIABLES: ReadonlySet<string> = new Set(SETTING_NAMES.map(envOf));

/** The FILECONV_ variables a file names that are no setting (a typo, or a setting since renamed). */
export function unknownVariables(text: string): string[] {
  const named = new Set(text.match(/\bFILECONV_[A-Z0-9_]+/g) ?? []);
  return [...named].filter((name) => !SETTING_VARIABLES.has(name));
}

/** Whether the API answers GET on `path` (probes: /api/ready, /api/health). */
export function isApiGetRoute(path: string): boolean {
  return OPERATIONS.some((operation) => operation.method === 'get' && operation.path === path);
}

const COMMANDS: ReadonlySet<string> = new Set(SETTING_NAMES.flatMap((name) => settingOf(name).commands));

/**
 * What is wrong with the arguments a container gives the image's `fileconv` entrypoint: the
 * command must be one with settings (serve, worker), and each flag one of that command's.
 */
export function commandProblems(args: readonly string[]): string[] {
  const [command, ...rest] = args;
  if (command === undefined || !COMMANDS.has(command)) return [`no fileconv command: ${command}`];
  const flags = new Set(
    SETTING_NAMES.filter((name) => settingOf(name).commands.includes(command as SettingCommand)).map(flagOf),
  );
  return rest
    .filter((arg) => arg.startsWith('--'))
    .map((arg) => arg.split('=')[0]!)
    .filter((flag) => !flags.has(flag))
    .map((flag) => `${flag} is no flag of fileconv ${command}`);
}
