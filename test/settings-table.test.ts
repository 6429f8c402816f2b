/**
 * The settings table (src/preset/settings.ts) through the real command line, in-process:
 * `fileconv config check` resolves exactly as `fileconv serve` does. For every entry of the
 * table, the config file key, the FILECONV_ variable and the flag each set the value, flag over
 * variable over file over default, and `config check` says which one did. The older unprefixed
 * variables still work for the CLI, after the FILECONV_ name. Every boolean takes the one
 * syntax (1/0, true/false, on/off, yes/no) and refuses anything else naming the variable. The
 * serve and worker options are exactly the table's. Secrets are masked and have no flag.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram, main } from '../bin/cli.js';
import * as settingOptions from '../bin/support/setting-options.js';
import {
  envNamesOf,
  envOf,
  flagOf,
  SETTING_NAMES,
  type SettingName,
  settingOf,
} from '../src/preset/settings.js';

let root: string;
let counter = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fileconv-settings-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeJson(contents: unknown): Promise<string> {
  const path = join(root, `file-${++counter}.json`);
  await writeFile(path, JSON.stringify(contents));
  return path;
}

/** Every variable a setting may be read from, cleared around each run (whatever the shell set). */
const ALL_VARIABLES = SETTING_NAMES.flatMap((name) => envNamesOf(name, true));

interface CheckRun {
  code: number;
  stdout: string;
  stderr: string;
  printed: Printed;
}

interface Printed {
  settings: Record<string, { value: unknown; source: string }>;
  plans: Record<string, { conversionsPerDay: number | null }>;
}

/** `fileconv config check <args>` in this process, with exactly `env` of the settings' variables. */
async function configCheck(args: readonly string[], env: Record<string, string> = {}): Promise<CheckRun> {
  const saved = { ...process.env };
  for (const name of ALL_VARIABLES) delete process.env[name];
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    const code = await main(['node', 'fileconv', 'config', 'check', ...args]);
    return { code, stdout, stderr, printed: code === 0 ? (JSON.parse(stdout) as Printed) : ({} as Printed) };
  } finally {
    out.mockRestore();
    err.mockRestore();
    for (const name of ALL_VARIABLES) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

/**
 * Three values of a setting, each different from the next: the config file's (JSON), the
 * variable's (text and what it means) and the flag's (text, or a switch). A switch only sets the
 * value that is not its default, so its variable says the default (beating the file) and the flag
 * the other value (beating the variable). `read` picks the value from what config check prints.
 */
interface Sample {
  file: unknown;
  env: [text: string, value: unknown];
  flag: [text: string, value: unknown] | 'switch';
  /** What the file's value reads as, when not itself (plans: the merged table's number). */
  fileMeans?: unknown;
  read?: (printed: Printed) => unknown;
}

const plansFileOf = async (perDay: number) => writeJson({ free: { conversionsPerDay: perDay } });
let envPlans: string;
let flagPlans: string;
beforeAll(async () => {
  envPlans = await plansFileOf(12);
  flagPlans = await plansFileOf(13);
});

const SAMPLES: Record<Exclude<SettingName, 'config' | 'signingSecret' | 'webhookSecret'>, Sample> = {
  port: { file: 4100, env: ['4200', 4200], flag: ['4300', 4300] },
  host: { file: '127.0.0.2', env: ['127.0.0.3', '127.0.0.3'], flag: ['127.0.0.4', '127.0.0.4'] },
  publicUrl: {
    file: 'https://file.example.com',
    env: ['https://env.example.com', 'https://env.example.com'],
    flag: ['https://flag.example.com', 'https://flag.example.com'],
  },
  trustProxy: { file: ['10.0.0.0/8'], env: ['2', 2], flag: ['loopback', 'loopback'] },
  web: { file: false, env: ['TRUE', true], flag: 'switch' },
  log: { file: false, env: ['on', true], flag: 'switch' },
  logFormat: { file: 'json', env: ['pretty', 'pretty'], flag: ['json', 'json'] },
  convertTimeoutSeconds: { file: 90, env: ['91', 91], flag: ['92', 92] },
  maxQueuedJobs: { file: 50, env: ['1', 1], flag: ['2', 2] },
  metricsPort: { file: 9100, env: ['9101', 9101], flag: ['9102', 9102] },
  data: {
    file: '/srv/file-data',
    env: ['/srv/env-data', '/srv/env-data'],
    flag: ['/srv/flag-data', '/srv/flag-data'],
  },
  redisUrl: {
    file: 'redis://file.internal:6379',
    env: ['redis://env.internal:6379', 'redis://env.internal:6379'],
    flag: ['redis://flag.internal:6379', 'redis://flag.internal:6379'],
  },
  s3Bucket: { file: 'file-bucket', env: ['env-bucket', 'env-bucket'], flag: ['flag-bucket', 'flag-bucket'] },
  s3Endpoint: {
    file: 'http://file.internal:9000',
    env: ['http://env.internal:9000', 'http://env.internal:9000'],
    flag: ['http://flag.internal:9000', 'http://flag.internal:9000'],
  },
  s3Region: { file: 'eu-west-1', env: ['eu-west-2', 'eu-west-2'], flag: ['eu-west-3', 'eu-west-3'] },
  s3ForcePathStyle: { file: true, env: ['no', false], flag: 'switch' },
  s3Prefix: { file: 'file/', env: ['env/', 'env/'], flag: ['flag/', 'flag/'] },
  plans: {
    file: { free: { conversionsPerDay: 11 } },
    fileMeans: 11,
    env: ['(envPlans)', 12],
    flag: ['(flagPlans)', 13],
    read: (printed) => printed.plans.free?.conversionsPerDay,
  },
  limits: { file: false, env: ['1', true], flag: 'switch' },
  retentionHours: { file: 2, env: ['3', 3], flag: ['4.5', 4.5] },
  uploadRetentionHours: { file: 0.5, env: ['0.25', 0.25], flag: ['2', 2] },
  engines: {
    file: ['sharp', 'pdf'],
    env: ['sharp', ['sharp']],
    flag: ['sharp, ffmpeg', ['sharp', 'ffmpeg']],
  },
  readyEngines: { file: ['sharp'], env: ['pdf', ['pdf']], flag: ['sharp,pdf', ['sharp', 'pdf']] },
  readyTimeoutMs: { file: 1000, env: ['1500', 1500], flag: ['2500', 2500] },
  worker: { file: false, env: ['Yes', true], flag: 'switch' },
  concurrency: { file: 5, env: ['6', 6], flag: ['7', 7] },
  graceSeconds: { file: 10, env: ['0', 0], flag: ['20', 20] },
  queueLockMs: { file: 10_000, env: ['12000', 12_000], flag: ['15000', 15_000] },
  corsOrigins: {
    file: ['https://file.example.com'],
    env: ['https://env.example.com', ['https://env.example.com']],
    flag: ['*', '*'],
  },
  corsCredentials: { file: true, env: ['false', false], flag: 'switch' },
  corsMaxAgeSeconds: { file: 60, env: ['61', 61], flag: ['62', 62] },
  corsAllowHeaders: {
    file: ['X-File'],
    env: ['X-Env', ['X-Env']],
    flag: ['X-Flag,X-Other', ['X-Flag', 'X-Other']],
  },
  webhookAllowPrivate: { file: true, env: ['0', false], flag: 'switch' },
};

const SAMPLED = Object.keys(SAMPLES) as (keyof typeof SAMPLES)[];

/** The config file holding `value` at the setting's key, with what its section needs beside it. */
function fileWith(name: SettingName, value: unknown): Record<string, unknown> {
  const [section, key] = (settingOf(name).file ?? '').split('.') as [string, string | undefined];
  if (key === undefined) return { [section]: value };
  const needs: Record<string, Record<string, unknown>> = {
    s3: { bucket: 'needed-bucket' },
    cors: { origins: ['https://needed.example.com'] },
  };
  return { [section]: { ...needs[section], [key]: value } };
}

/** A sample's text, with the plans files' paths put in. */
const textOf = (text: string) => text.replace('(envPlans)', envPlans).replace('(flagPlans)', flagPlans);

describe('every setting of the table', () => {
  it('has a sample here (a new setting gets one, and with it the checks below)', () => {
    const tested = new Set<string>([...SAMPLED, 'config', 'signingSecret', 'webhookSecret']);
    expect(SETTING_NAMES.filter((name) => !tested.has(name))).toEqual([]);
  });

  it.each(SAMPLED)(
    '%s: file, then FILECONV_ variable over it, then the flag over both; else the default',
    async (name) => {
      const sample = SAMPLES[name];
      const entry = settingOf(name);
      const key = entry.file as string;
      const read = sample.read ?? ((printed: Printed) => printed.settings[key]?.value);
      const config = await writeJson(fileWith(name, sample.file));
      const variable = envOf(name);

      const fromFile = await configCheck(['--config', config]);
      expect(fromFile.stderr).toBe('');
      const fileMeans = 'fileMeans' in sample ? sample.fileMeans : sample.file;
      expect(read(fromFile.printed)).toEqual(fileMeans);
      expect(fromFile.printed.settings[key]?.source).toBe(`file ${key}`);

      const env = { [variable]: textOf(sample.env[0]) };
      const fromEnv = await configCheck(['--config', config], env);
      expect(fromEnv.stderr).toBe('');
      expect(read(fromEnv.printed)).toEqual(sample.env[1]);
      expect(fromEnv.printed.settings[key]?.source).toBe(`env ${variable}`);

      const flagArgs = sample.flag === 'switch' ? [flagOf(name)] : [flagOf(name), textOf(sample.flag[0])];
      const flagValue = sample.flag === 'switch' ? fileMeans : sample.flag[1];
      const fromFlag = await configCheck(['--config', config, ...flagArgs], env);
      expect(fromFlag.stderr).toBe('');
      expect(read(fromFlag.printed)).toEqual(flagValue);
      expect(fromFlag.printed.settings[key]?.source).toBe(`flag ${flagOf(name)}`);

      const defaults = await configCheck([]);
      expect(defaults.printed.settings[key]?.source).toBe('default');
    },
  );

  it.each(
    SETTING_NAMES.flatMap((name) =>
      (settingOf(name).legacyEnv ?? []).map((legacy) => [name, legacy] as const),
    ),
  )('%s: the CLI still reads %s, after the FILECONV_ variable', async (name, legacy) => {
    const sample = SAMPLES[name as keyof typeof SAMPLES];
    const key = settingOf(name).file as string;
    const base: Record<string, string> =
      name.startsWith('s3') && name !== 's3Bucket' ? { S3_BUCKET: 'bucket' } : {};
    const older = await configCheck([], { ...base, [legacy]: textOf(sample.env[0]) });
    expect(older.stderr).toBe('');
    expect(older.printed.settings[key]).toMatchObject({ value: sample.env[1], source: `env ${legacy}` });

    const newer = sample.flag === 'switch' ? String(!sample.env[1]) : textOf(sample.flag[0]);
    const both = await configCheck([], { ...base, [legacy]: textOf(sample.env[0]), [envOf(name)]: newer });
    expect(both.printed.settings[key]?.source).toBe(`env ${envOf(name)}`);
  });

  it('keeps the short flags -p, -c and -d', async () => {
    const run = await configCheck(['-p', '4400', '-c', '3', '-d', '/srv/short']);
    expect(run.stderr).toBe('');
    expect(run.printed.settings['server.port']).toMatchObject({ value: 4400, source: 'flag --port' });
    expect(run.printed.settings['workers.concurrency']).toMatchObject({
      value: 3,
      source: 'flag --concurrency',
    });
    expect(run.printed.settings.dataDir).toMatchObject({ value: '/srv/short', source: 'flag --data' });
  });

  it('refuses a bad value, naming the flag or the variable and what is expected', async () => {
    const flag = await configCheck(['--concurrency', 'lots']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toBe(
      'fileconv: --concurrency must be a whole number above 0, got "lots". [INVALID_OPTIONS]\n',
    );
    const variable = await configCheck([], { FILECONV_METRICS_PORT: '70000' });
    expect(variable.stderr).toContain('FILECONV_METRICS_PORT must be a port number 0-65535, got "70000".');
    const engine = await configCheck([], { FILECONV_ENGINES: 'sharp,imagemagik' });
    expect(engine.stderr).toContain('FILECONV_ENGINES must be a comma-separated list');
    expect(engine.stderr).toContain('unknown engine "imagemagik"');
  });
});

describe('one boolean syntax', () => {
  const switches = SETTING_NAMES.filter((name) => settingOf(name).kind.argument === undefined);

  it.each(switches)(
    '%s: 1/0, true/false, on/off, yes/no in any case; anything else refused',
    async (name) => {
      const key = settingOf(name).file as string;
      const base: Record<string, string> = name.startsWith('s3') ? { FILECONV_S3_BUCKET: 'bucket' } : {};
      const needs: Record<string, string> = name.startsWith('cors') ? { FILECONV_CORS_ORIGINS: '*' } : {};
      for (const [text, value] of [
        ['1', true],
        ['0', false],
        ['true', true],
        ['False', false],
        ['ON', true],
        ['off', false],
        ['yes', true],
        ['No', false],
      ] as const) {
        const run = await configCheck([], { ...base, ...needs, [envOf(name)]: text });
        expect(run.stderr).toBe('');
        expect(run.printed.settings[key]?.value).toBe(value);
      }
      const refused = await configCheck([], { ...base, ...needs, [envOf(name)]: 'maybe' });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `fileconv: ${envOf(name)} must be 1/0, true/false, on/off or yes/no (any case), got "maybe". [INVALID_OPTIONS]\n`,
      );
    },
  );

  it('S3_FORCE_PATH_STYLE=1 is path style (it was read as false: only "true" counted)', async () => {
    const run = await configCheck([], { S3_BUCKET: 'bucket', S3_FORCE_PATH_STYLE: '1' });
    expect(run.printed.settings['s3.forcePathStyle']).toMatchObject({
      value: true,
      source: 'env S3_FORCE_PATH_STYLE',
    });
  });
});

describe('secrets', () => {
  it('are masked, said where they come from, and have no flag and no file key', async () => {
    const secret = 'a-signing-secret-of-more-than-32-characters';
    const run = await configCheck([], { FILECONV_SIGNING_SECRET: secret });
    expect(run.stdout).not.toContain(secret);
    expect(run.printed.settings.signingSecret).toMatchObject({
      value: `REDACTED (${secret.length} characters)`,
      source: 'env FILECONV_SIGNING_SECRET',
    });
    expect(run.printed.settings.webhookSecret).toMatchObject({ value: null, source: 'default' });

    const flag = await configCheck(['--signing-secret', secret]);
    expect(flag.code).not.toBe(0);
    const inFile = await configCheck(['--config', await writeJson({ signingSecret: secret })]);
    expect(inFile.code).toBe(1);
    expect(inFile.stderr).toContain('signingSecret is not a setting');
  });
});

describe('the command line', () => {
  /** A command's long flags as commander has them (help aside). */
  function flagsOf(path: readonly string[]): string[] {
    let command = buildProgram(settingOptions);
    for (const name of path) command = command.commands.find((child) => child.name() === name) ?? command;
    return command.options.map((option) => option.long ?? '').filter((flag) => flag !== '--help');
  }

  it.each([
    [['serve'], 'serve'],
    [['worker'], 'worker'],
    [['config', 'check'], 'serve'],
  ] as const)('%j has exactly the flags of the table entries for %s', (path, command) => {
    const expected = SETTING_NAMES.filter((name) => settingOf(name).commands.includes(command)).map(flagOf);
    expect(flagsOf(path).sort()).toEqual(expected.sort());
  });
});
