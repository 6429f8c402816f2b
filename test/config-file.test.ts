/**
 * The config file of `fileconv serve` and `fileconv worker`: settings resolved flag over
 * environment over file over default (each with its source), validation that names the file and
 * the field, the file picked up from the working directory, `fileconv config check` on the
 * example in examples/config (exit 0) and on a broken file (exit 1), and a real `fileconv serve`
 * started from a config file alone applying its port, plans and CORS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PLANS } from '../src/core/policy/plans.js';
import { chooseConfigFile, configJsonSchema } from '../src/preset/config-file.js';
import { fileconvOptionsOf, resolveConfig } from '../src/preset/effective-config.js';
import { createCorsPolicy } from '../src/service/cors.js';
import type { HttpExchange } from '../src/service/exchange.js';
import { runCli } from './helpers/cli-process.js';
import { freePort } from './helpers/free-port.js';
import { readmeBlocks } from './helpers/readme-blocks.js';
import { CLI_ARGS, exited } from './helpers/serve-process.js';

const EXAMPLE = join(import.meta.dirname, '..', 'examples', 'config', 'fileconv.config.json');

let root: string;
let counter = 0;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fileconv-config-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes `contents` (JSON unless a string) to a fresh file; returns its path. */
async function configFile(contents: unknown): Promise<string> {
  const path = join(root, `config-${++counter}.json`);
  await writeFile(path, typeof contents === 'string' ? contents : JSON.stringify(contents));
  return path;
}

describe('resolveConfig', () => {
  it('takes each setting from the flag, else the environment, else the file, else the default, and says which', async () => {
    const config = await configFile({
      server: { port: 4100, host: '127.0.0.2', publicUrl: 'https://file.example.com' },
      workers: { concurrency: 5 },
      cors: { origins: ['https://file.example.com'], maxAgeSeconds: 60 },
    });
    const env = { PORT: '4200', HOST: '127.0.0.3', FILECONV_CORS_ORIGINS: 'https://env.example.com' };

    const fromFlag = await resolveConfig({ config, port: 4300 }, env, root);
    expect(fromFlag.server.port).toBe(4300);
    expect(fromFlag.sources['server.port']).toBe('flag --port');

    const fromEnv = await resolveConfig({ config }, env, root);
    expect(fromEnv.server.port).toBe(4200);
    expect(fromEnv.sources['server.port']).toBe('env PORT');
    expect(fromEnv.server.host).toBe('127.0.0.3');
    // The variable names the origins; the file's other CORS settings still apply.
    expect(fromEnv.cors).toEqual({ origins: ['https://env.example.com'], maxAgeSeconds: 60 });

    const fromFile = await resolveConfig({ config }, {}, root);
    expect(fromFile.server.port).toBe(4100);
    expect(fromFile.sources['server.port']).toBe('file server.port');
    expect(fromFile.server.publicUrl).toBe('https://file.example.com');
    expect(fromFile.workers.concurrency).toBe(5);
    expect(fromFile.sources['workers.concurrency']).toBe('file workers.concurrency');
    expect(fromFile.cors?.origins).toEqual(['https://file.example.com']);
    expect(fromFile.sources.configFile).toBe('flag --config');

    const defaults = await resolveConfig({}, {}, root);
    expect(defaults.configFile).toBeUndefined();
    expect(defaults.server.port).toBe(3000);
    expect(defaults.sources['server.port']).toBe('default');
    expect(defaults.cors).toBeUndefined();
    expect(defaults.plans).toBe(DEFAULT_PLANS);
    expect(defaults.workers).toEqual({ enabled: true, concurrency: 2, graceSeconds: 30 });
  });

  it('merges the plans through definePlans; --plans and $FILECONV_PLANS go before them; --no-limits before limits', async () => {
    const config = await configFile({ plans: { free: { conversionsPerDay: 9 } }, limits: true });
    const fromFile = await resolveConfig({ config }, {}, root);
    expect(fromFile.plans.free?.conversionsPerDay).toBe(9);
    expect(fromFile.plans.pro).toEqual(DEFAULT_PLANS.pro);

    const plansFile = await configFile({ free: { conversionsPerDay: 3 } });
    const fromEnv = await resolveConfig({ config }, { FILECONV_PLANS: plansFile }, root);
    expect(fromEnv.plans.free?.conversionsPerDay).toBe(3);
    expect(fromEnv.sources.plans).toBe('env FILECONV_PLANS');

    const off = await resolveConfig({ config, limits: false }, { FILECONV_LIMITS: 'on' }, root);
    expect(off.limits).toBe(false);
    expect(off.sources.limits).toBe('flag --no-limits');
    // Commander's default true for a negatable flag is no flag at all: the file decides.
    const fileOff = await resolveConfig(
      { config: await configFile({ limits: false }), limits: true },
      {},
      root,
    );
    expect(fileOff.limits).toBe(false);
  });

  it("maps to createFileconv's options, the HTTP service's included (what serve and a host mounting it use)", async () => {
    const config = await configFile({
      server: {
        publicUrl: 'https://files.example.com',
        trustProxy: ['10.0.0.0/8'],
        web: false,
        convertTimeoutSeconds: 90,
        maxQueuedJobs: 25,
      },
      retention: { resultsHours: 2, uploadsHours: 0.5 },
      engines: { enabled: ['sharp', 'pdf'], requiredForReady: ['sharp'] },
      workers: { concurrency: 3 },
      cors: { origins: '*', credentials: true },
    });
    const options = fileconvOptionsOf(await resolveConfig({ config }, {}, root), { worker: false });
    expect(options.converters?.map((converter) => converter.name)).toEqual(['sharp', 'pdf']);
    expect(options).toMatchObject({
      maxQueuedJobs: 25,
      concurrency: 3,
      resultTtlMs: 7_200_000,
      uploadTtlMs: 1_800_000,
      worker: false,
    });
    expect(options.http).toEqual({
      publicUrl: 'https://files.example.com',
      trustProxy: ['10.0.0.0/8'],
      cors: { origins: '*', credentials: true },
      webConverter: false,
      convertTimeoutMs: 90_000,
      readiness: { requiredConverters: ['sharp'], timeoutMs: 2000 },
    });
  });

  it('takes "*" in the file as on the command line: any origin, alone or as a list of one', async () => {
    const anyPage = {
      method: 'GET',
      header: (name: string) => (name === 'origin' ? 'https://any.example' : undefined),
    };
    for (const origins of ['*', ['*']]) {
      const resolved = await resolveConfig({ config: await configFile({ cors: { origins } }) }, {}, root);
      expect(resolved.cors?.origins).toEqual(origins);
      const headers: Record<string, string> = {};
      createCorsPolicy(resolved.cors!).decorate(anyPage as unknown as HttpExchange, headers);
      expect(headers['access-control-allow-origin']).toBe('*');
    }
    const flag = await resolveConfig({ corsOrigins: '*' }, {}, root);
    expect(flag.cors?.origins).toBe('*');
  });

  it('resolves a relative dataDir against the config file, not the working directory', async () => {
    const config = await configFile({ dataDir: 'srv/data' });
    const resolved = await resolveConfig({ config }, {}, '/');
    expect(resolved.dataDir).toBe(join(root, 'srv', 'data'));
  });

  it('picks up ./fileconv.config.json, or $FILECONV_CONFIG, when no --config is given', async () => {
    const dir = join(root, 'cwd');
    await mkdir(dir, { recursive: true });
    expect(await chooseConfigFile(undefined, {}, dir)).toBeUndefined();
    await writeFile(join(dir, 'fileconv.config.json'), JSON.stringify({ server: { port: 4400 } }));
    const found = await resolveConfig({}, {}, dir);
    expect(found.server.port).toBe(4400);
    expect(found.sources.configFile).toBe('found ./fileconv.config.json');

    const named = await configFile({ server: { port: 4500 } });
    expect((await resolveConfig({}, { FILECONV_CONFIG: named }, dir)).server.port).toBe(4500);
    expect((await resolveConfig({ config: named }, {}, dir)).sources.configFile).toBe('flag --config');
  });

  it.each([
    [{ server: { prot: 8080 } }, /server\.prot is not a setting/],
    [{ server: { port: '8080' } }, /server\.port: .*expected number/],
    [{ server: { port: 70_000 } }, /server\.port: /],
    [{ workers: { concurrency: 0 } }, /workers\.concurrency: /],
    [
      { plans: { free: { conversionsPerDay: 'lots' } } },
      /plans: plan "free" field "conversionsPerDay" must be/,
    ],
    [
      { engines: { enabled: ['sharp', 'imagemagik'] } },
      /engines\.enabled\[1\]: unknown engine "imagemagik": expected one of sharp,/,
    ],
    [
      { engines: { enabled: ['sharp'], requiredForReady: ['libreoffice'] } },
      /requires libreoffice for readiness/,
    ],
    [
      { cors: { origins: ['https://app.example.com/app'] } },
      /: cors\.origins must be origins like .*without a path/,
    ],
    [{ cors: { credentials: true } }, /cors\.origins: /],
    [
      { cors: { origins: ['*', 'https://app.example.com'] } },
      /cors\.origins must be "\*" alone or a list of origins, not both/,
    ],
    [{ redis: { url: 'localhost:6379' } }, /redis\.url: /],
    ['{ "server": ', /not valid JSON/],
  ])('refuses %j, naming the file and the field', async (contents, expected) => {
    const config = await configFile(contents);
    const failure = resolveConfig({ config }, {}, root);
    await expect(failure).rejects.toThrow(expected);
    await expect(failure).rejects.toMatchObject({ code: 'INVALID_OPTIONS' });
    await expect(failure).rejects.toThrow(`Config file ${config}: `);
  });

  it('refuses a missing file and a bad variable, naming them', async () => {
    await expect(resolveConfig({ config: join(root, 'nope.json') }, {}, root)).rejects.toThrow(
      /Config file .*nope\.json: cannot be read \(no such file\)/,
    );
    await expect(resolveConfig({}, { PORT: 'eighty' }, root)).rejects.toThrow(/PORT must be a port number/);
    await expect(resolveConfig({}, { FILECONV_CORS_ORIGINS: 'app.example.com' }, root)).rejects.toThrow(
      /env FILECONV_CORS_ORIGINS: cors\.origins/,
    );
  });
});

describe('the config JSON Schema (fileconv config schema)', () => {
  it('describes the same strict shape: unknown fields refused, engines by name, ports as integers', () => {
    const schema = configJsonSchema(['sharp', 'ffmpeg']) as {
      additionalProperties: boolean;
      properties: Record<string, { properties: Record<string, unknown>; additionalProperties: boolean }>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining([
        'server',
        'dataDir',
        'redis',
        's3',
        'plans',
        'limits',
        'retention',
        'engines',
        'workers',
        'cors',
      ]),
    );
    expect(schema.properties.server?.additionalProperties).toBe(false);
    expect(schema.properties.server?.properties.port).toMatchObject({
      type: 'integer',
      minimum: 0,
      maximum: 65_535,
    });
    expect(schema.properties.engines?.properties.enabled).toMatchObject({
      items: { enum: ['sharp', 'ffmpeg'] },
    });
  });
});

describe('fileconv config check', () => {
  it('prints the example config as JSON with sources and secrets redacted, and exits 0', async () => {
    const run = await runCli(['config', 'check', '--config', EXAMPLE], {
      env: {
        PORT: '9001',
        REDIS_URL: 'redis://fileconv:hunter2@redis.internal:6379',
        FILECONV_CONFIG: undefined,
      },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed.configFile).toBe(EXAMPLE);
    expect(printed.server.port).toBe(9001);
    expect(printed.sources['server.port']).toBe('env PORT');
    expect(printed.server.publicUrl).toBe('https://files.example.com');
    expect(printed.sources['server.publicUrl']).toBe('file server.publicUrl');
    expect(printed.plans.free.conversionsPerDay).toBe(20);
    expect(printed.plans.team.maxBatchJobs).toBe(10);
    expect(printed.cors.origins).toContain('https://app.example.com');
    expect(printed.redis.url).toBe('redis://fileconv:REDACTED@redis.internal:6379');
    expect(run.stdout).not.toContain('hunter2');
    expect(printed.s3).toBeNull();
  });

  it("accepts the README's example file as it is printed there", async () => {
    const block = readmeBlocks(readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8')).find(
      (candidate) => candidate.lang === 'json' && candidate.code.includes('"requiredForReady"'),
    );
    expect(block, "the README's config example").toBeDefined();
    const run = await runCli(['config', 'check', '--config', await configFile(JSON.parse(block!.code))], {
      env: { PORT: undefined, REDIS_URL: undefined, FILECONV_CONFIG: undefined },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed.server.port).toBe(8080);
    expect(printed.workers.concurrency).toBe(4);
  });

  it('prints the validation error and exits 1', async () => {
    const config = await configFile({ server: { port: 8080, hots: 'x' } });
    const run = await runCli(['config', 'check', '--config', config]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`fileconv: Config file ${config}: server.hots is not a setting`);
    expect(run.stderr).toContain('[INVALID_OPTIONS]');
  });
});

describe('fileconv keys with a config file', () => {
  it("creates a key in the config file's data dir, on a plan the file adds, and lists it there", async () => {
    const dir = join(root, 'keys');
    await mkdir(dir, { recursive: true });
    const team = { label: 'Team', conversionsPerDay: null, maxFileBytes: 1_000_000, filesPerHour: null };
    const extra = { apiCallsPerMonth: 100, priority: 3, batch: false, maxBatchJobs: 0 };
    const config = join(dir, 'fileconv.config.json');
    await writeFile(config, JSON.stringify({ dataDir: './keydata', plans: { team: { ...team, ...extra } } }));
    const env = { FILECONV_DATA: undefined, REDIS_URL: undefined, FILECONV_CONFIG: undefined };
    const created = await runCli(['keys', 'create', '--plan', 'team', '--account', 'acct-7', '--json'], {
      cwd: dir,
      env,
    });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ accountId: 'acct-7', plan: 'team' });

    const listed = await runCli(['keys', 'list', '--config', config, '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ accountId: 'acct-7', plan: 'team' }]);
    // In the file's dataDir, not in ./data of the working directory.
    expect([existsSync(join(dir, 'keydata')), existsSync(join(dir, 'data'))]).toEqual([true, false]);
  });
});

describe('fileconv serve with a config file', () => {
  let child: ChildProcess | undefined;

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await exited(child);
    }
  });

  it('applies its port, plans and CORS, found in the working directory', async () => {
    const dir = join(root, 'serve');
    await mkdir(dir, { recursive: true });
    const port = await freePort();
    await writeFile(
      join(dir, 'fileconv.config.json'),
      JSON.stringify({
        server: { port, host: '127.0.0.1', web: false, log: false },
        dataDir: './data',
        plans: { free: { conversionsPerDay: 7 } },
        engines: { enabled: ['sharp'] },
        cors: { origins: ['https://app.example.com'] },
      }),
    );
    const cli = CLI_ARGS.map((arg) => (arg === 'tsx' ? import.meta.resolve('tsx') : arg));
    const env = { ...process.env };
    for (const name of [
      'PORT',
      'HOST',
      'FILECONV_CONFIG',
      'FILECONV_PLANS',
      'FILECONV_DATA',
      'FILECONV_CORS_ORIGINS',
    ]) {
      delete env[name];
    }
    const started = spawn(process.execPath, [...cli, 'serve'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = started;
    let stdout = '';
    let stderr = '';
    started.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await new Promise<void>((resolve, reject) => {
      started.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (/serving on /.test(stdout)) resolve();
      });
      started.once('exit', (code) => reject(new Error(`fileconv serve exited (${code}): ${stderr}`)));
    });
    expect(stdout).toContain(`settings from ${join(dir, 'fileconv.config.json')}`);
    expect(stdout).toContain(`serving on http://127.0.0.1:${port}`);
    const url = `http://127.0.0.1:${port}`;

    const usage = (await (await fetch(`${url}/api/usage`)).json()) as {
      quotas: { conversions: { limit: number | null } };
    };
    expect(usage.quotas.conversions.limit).toBe(7);

    const preflight = await fetch(`${url}/api/upload`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const formats = await fetch(`${url}/api/formats`, { headers: { origin: 'https://other.example.com' } });
    expect(formats.status).toBe(200);
    expect(formats.headers.get('access-control-allow-origin')).toBeNull();
    // engines.enabled: every conversion offered is sharp's.
    const listed = (await formats.json()) as {
      formats: { name: string; targets: { format: string; converters: string[] }[] }[];
    };
    const converters = new Set(
      listed.formats.flatMap((format) => format.targets.flatMap((target) => target.converters)),
    );
    expect([...converters]).toEqual(['sharp']);
    expect(
      listed.formats.find((format) => format.name === 'png')?.targets.map((target) => target.format),
    ).toContain('webp');
  });
});
