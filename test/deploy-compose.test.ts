/**
 * compose.yaml (issue 30, item 3) is valid Compose, validated offline by docker-compose's own
 * schema check (`config -q`), and agrees with fileconv: every FILECONV_ variable is a setting,
 * the commands and flags exist, the API's port and health paths are the ones the image serves,
 * and the secrets are required from the environment, never written in the file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  commandProblems,
  IMAGE_DATA_DIR,
  ROOT,
  SERVE_PORT,
  unknownVariables,
} from './helpers/deploy-files.js';
import { describeWithEngine } from './helpers/engines.js';
import { tempDir } from './helpers/temp.js';

const COMPOSE_FILE = join(ROOT, 'compose.yaml');
const TEXT = readFileSync(COMPOSE_FILE, 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  deploy?: { replicas?: number };
}

/** Compose merges `<<: *anchor` keys (YAML 1.1), which the yaml package does only when asked. */
const compose = parse(TEXT, { merge: true }) as { services: Record<string, Service> };
const { api, worker } = compose.services as { api: Service; worker: Service };

/** The values .env gives the secrets: any will do for validation. */
const SECRETS = {
  FILECONV_SIGNING_SECRET: 'a'.repeat(48),
  S3_ACCESS_KEY_ID: 'access',
  S3_SECRET_ACCESS_KEY: 'secret',
};

async function dockerCompose(env: Record<string, string>) {
  const emptyEnvFile = join(await tempDir('compose-env-'), '.env');
  writeFileSync(emptyEnvFile, '');
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !(name in SECRETS)),
  ) as NodeJS.ProcessEnv;
  // --env-file: a developer's own .env (ignored by git) must not fill in what the test leaves out.
  return spawnSync('docker-compose', ['-f', COMPOSE_FILE, '--env-file', emptyEnvFile, 'config', '-q'], {
    cwd: ROOT,
    env: { ...clean, ...env },
    encoding: 'utf8',
  });
}

describe('compose.yaml', () => {
  it('names only real FILECONV_ settings', () => {
    expect(unknownVariables(TEXT)).toEqual([]);
  });

  it('runs an API node and two workers of the image, with real commands and flags', () => {
    for (const service of [api, worker]) {
      expect(service.image).toBe('fileconv');
      expect(service.build).toBe('.');
      expect(commandProblems(service.command ?? [])).toEqual([]);
    }
    expect(api.command).toEqual(['serve', '--no-worker']);
    expect(worker.command?.[0]).toBe('worker');
    expect(worker.deploy?.replicas).toBe(2);
  });

  it("publishes the API's port; the image's HEALTHCHECK checks both services", () => {
    expect(api.ports).toContain(`${SERVE_PORT}:${SERVE_PORT}`);
    // The image's check asks /api/ready on a server and the metrics port on a worker (it reads
    // the command: scripts/image/healthcheck.mjs, run in test/container/): no override here.
    for (const service of [api, worker]) expect(service.healthcheck).toBeUndefined();
    expect(worker.environment?.FILECONV_METRICS_PORT).toMatch(/^\d+$/);
  });

  it('takes the secrets from the environment, required, never from the file', () => {
    for (const service of [api, worker]) {
      const env = service.environment ?? {};
      for (const name of ['FILECONV_SIGNING_SECRET', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
        expect(env[name], name).toMatch(/^\$\{[A-Z0-9_]+:\?[^}]+\}$/);
      }
    }
  });

  it('gives each fileconv container a /data of its own (temp dirs are named by pid)', () => {
    for (const service of [api, worker]) expect(service.volumes).toEqual([IMAGE_DATA_DIR]);
  });

  it('creates the bucket the fileconv containers use', () => {
    const bucket = compose.services['s3-bucket']?.environment?.BUCKET;
    expect(bucket).toBeTruthy();
    expect(api.environment?.FILECONV_S3_BUCKET).toBe(bucket);
  });

  // After the merge of the Dockerfile: the image serves where the files expect it to.
  it.skipIf(!existsSync(join(ROOT, 'Dockerfile')))(
    'agrees with the Dockerfile on the data dir and port',
    () => {
      const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
      expect(dockerfile).toMatch(new RegExp(`FILECONV_DATA[= ]${IMAGE_DATA_DIR}\\b`));
      expect(dockerfile).toMatch(new RegExp(`^EXPOSE\\s+${SERVE_PORT}\\b`, 'm'));
    },
  );
});

const DOCKER_COMPOSE = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;

describeWithEngine(
  'docker-compose',
  DOCKER_COMPOSE,
  'apt-get install docker-compose',
  'compose.yaml, validated by docker-compose',
  () => {
    it('is valid Compose (the schema check of docker-compose config)', async () => {
      const result = await dockerCompose(SECRETS);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    });

    it('refuses to start without the signing secret, naming it', async () => {
      const { FILECONV_SIGNING_SECRET: _, ...withoutSigning } = SECRETS;
      const result = await dockerCompose(withoutSigning);
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain('set FILECONV_SIGNING_SECRET in .env');
    });
  },
);
