/**
 * createFileconv's settings (issue 27, item 3): an option given in code beats the environment,
 * field by field (an `s3.region` and `s3.prefix` in code are what S3 URLs are signed for, with
 * AWS_REGION, S3_PREFIX and their FILECONV_ names all set); the embedded preset reads only
 * FILECONV_ variables, so a host platform's REDIS_URL (Heroku, Render, Railway set one) never
 * sends fileconv's jobs and keys into the host's Redis, and the Redis adapters never read it
 * either; FILECONV_REDIS_URL and FILECONV_S3_* do configure it.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRedisSettings } from '../src/adapters/redis/connection.js';
import { isFileconvError } from '../src/index.js';
import { createFileconv, type Fileconv, type FileconvOptions } from '../src/preset/index.js';
import { describeWithRedis } from './helpers/redis-server.js';
import { tempDir } from './helpers/temp.js';

const saved = { ...process.env };
const opened: Fileconv[] = [];

afterEach(async () => {
  for (const fileconv of opened.splice(0)) await fileconv.close({ graceMs: 0 });
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** The variables a host's platform, or the AWS SDK's users, commonly have set. */
function setEnv(vars: Record<string, string>): void {
  for (const name of Object.keys(process.env)) {
    if (/^(FILECONV_|S3_|AWS_REGION$|REDIS_URL$)/.test(name)) delete process.env[name];
  }
  Object.assign(
    process.env,
    { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'not-a-secret' },
    vars,
  );
}

async function open(options: FileconvOptions): Promise<Fileconv> {
  const fileconv = await createFileconv({ dataDir: await tempDir(), webhooks: false, ...options });
  opened.push(fileconv);
  return fileconv;
}

/** A presigned upload URL of the storage: its host, path and the region it is signed for. */
async function presignedUpload(fileconv: Fileconv): Promise<{ host: string; path: string; region: string }> {
  const presign = fileconv.backends.storage.presignPut;
  expect(presign, 'S3 storage').toBeDefined();
  const url = new URL(
    await presign!.call(fileconv.backends.storage, 'uploads/a.png', {
      contentType: 'image/png',
      size: 3,
      expiresIn: 60,
    }),
  );
  // X-Amz-Credential: <key id>/<date>/<region>/s3/aws4_request
  const region = url.searchParams.get('X-Amz-Credential')?.split('/')[2] ?? '';
  return { host: url.host, path: url.pathname, region };
}

/** A local port nobody listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise((done) => probe.close(done));
  return port;
}

describe('createFileconv settings', () => {
  it('signs S3 URLs for the region and prefix given in code, whatever AWS_REGION, S3_PREFIX and their FILECONV_ names say', async () => {
    setEnv({
      AWS_REGION: 'ap-south-1',
      S3_REGION: 'ap-south-2',
      S3_PREFIX: 'legacy/',
      FILECONV_S3_REGION: 'ap-northeast-1',
      FILECONV_S3_PREFIX: 'env/',
    });
    const fileconv = await open({ s3Bucket: 'code-bucket', s3: { region: 'eu-west-3', prefix: 'code/' } });
    expect(await presignedUpload(fileconv)).toEqual({
      host: 'code-bucket.s3.eu-west-3.amazonaws.com',
      path: '/code/uploads/a.png',
      region: 'eu-west-3',
    });
  });

  it('takes each field not given in code from its FILECONV_ variable, never from the unprefixed ones', async () => {
    setEnv({
      AWS_REGION: 'ap-south-1',
      S3_BUCKET: 'host-bucket',
      S3_PREFIX: 'legacy/',
      S3_FORCE_PATH_STYLE: 'true',
      FILECONV_S3_BUCKET: 'env-bucket',
      FILECONV_S3_REGION: 'eu-north-1',
    });
    // prefix in code; region from FILECONV_S3_REGION; no path style (S3_FORCE_PATH_STYLE is the host's).
    const fileconv = await open({ s3: { prefix: 'code/' } });
    expect(await presignedUpload(fileconv)).toEqual({
      host: 'env-bucket.s3.eu-north-1.amazonaws.com',
      path: '/code/uploads/a.png',
      region: 'eu-north-1',
    });
  });

  it("runs on its own SQLite file with the host platform's REDIS_URL set", async () => {
    setEnv({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    const fileconv = await open({});
    expect(fileconv.backends.shared).toBe(false);
    expect(fileconv.backends.description).toContain('fileconv.db');
  }, 30_000);

  it('reads FILECONV_LIMITS in the one boolean syntax', async () => {
    setEnv({ FILECONV_LIMITS: 'no' });
    expect((await open({})).limits).toBe(false);
    setEnv({ FILECONV_LIMITS: 'perhaps' });
    const refused = await createFileconv({ dataDir: await tempDir() }).catch((error: unknown) => error);
    expect(isFileconvError(refused, 'INVALID_OPTIONS')).toBe(true);
    expect((refused as Error).message).toContain('FILECONV_LIMITS must be 1/0, true/false, on/off or yes/no');
  });

  it('hands the HTTP service maxQueuedJobs from the option, else http.maxQueuedJobs, else FILECONV_MAX_QUEUED_JOBS; no bound by default', async () => {
    setEnv({});
    expect((await open({})).http.maxQueuedJobs).toBeUndefined();
    setEnv({ FILECONV_MAX_QUEUED_JOBS: '40' });
    expect((await open({})).http.maxQueuedJobs).toBe(40);
    expect((await open({ http: { maxQueuedJobs: 30 } })).http.maxQueuedJobs).toBe(30);
    expect((await open({ maxQueuedJobs: 20, http: { maxQueuedJobs: 30 } })).http.maxQueuedJobs).toBe(20);
    setEnv({ FILECONV_MAX_QUEUED_JOBS: '0' });
    const refused = await createFileconv({ dataDir: await tempDir() }).catch((error: unknown) => error);
    expect(isFileconvError(refused, 'INVALID_OPTIONS')).toBe(true);
    expect((refused as Error).message).toContain('FILECONV_MAX_QUEUED_JOBS must be a whole number above 0');
  });

  it('takes the webhook secret from FILECONV_WEBHOOK_SECRET when the webhooks option gives the rest', async () => {
    setEnv({ FILECONV_WEBHOOK_SECRET: 'a webhook secret of 32 bytes or more, from the env' });
    const fileconv = await open({ webhooks: { allowPrivateAddresses: true } });
    expect(fileconv.webhooks).toBeDefined();
    setEnv({});
    const refused = await createFileconv({
      dataDir: await tempDir(),
      webhooks: { allowPrivateAddresses: true },
    }).catch((error: unknown) => error);
    expect(isFileconvError(refused, 'INVALID_OPTIONS')).toBe(true);
    expect((refused as Error).message).toContain('FILECONV_WEBHOOK_SECRET');
  });

  it('takes a whsec_ webhook secret, and refuses at the start one that is not base64, naming where it came from', async () => {
    setEnv({ FILECONV_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` });
    expect((await open({ webhooks: {} })).webhooks).toBeDefined();
    setEnv({ FILECONV_WEBHOOK_SECRET: 'whsec_this is not base64, whatever its length is' });
    const fromEnv = await createFileconv({ dataDir: await tempDir() }).catch((error: unknown) => error);
    expect(isFileconvError(fromEnv, 'INVALID_OPTIONS')).toBe(true);
    expect((fromEnv as Error).message).toMatch(/FILECONV_WEBHOOK_SECRET: .*not standard padded base64/);
    const fromCode = await createFileconv({
      dataDir: await tempDir(),
      webhooks: { secret: 'too short' },
    }).catch((error: unknown) => error);
    expect(isFileconvError(fromCode, 'INVALID_OPTIONS')).toBe(true);
    expect((fromCode as Error).message).toMatch(/webhooks\.secret: .*at least 32 bytes/);
  });
});

describe('the Redis adapters', () => {
  it('never read REDIS_URL: the URL is their caller’s', () => {
    setEnv({ REDIS_URL: 'redis://host-app-redis.internal:6379' });
    expect(resolveRedisSettings('test', {}).url).toBe('redis://127.0.0.1:6379');
  });
});

describeWithRedis('createFileconv on Redis', (redis) => {
  it('uses FILECONV_REDIS_URL, and redisUrl given in code over it', async () => {
    setEnv({ FILECONV_REDIS_URL: redis.url, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    const fromEnv = await open({});
    expect(fromEnv.backends.shared).toBe(true);
    expect(fromEnv.backends.description).toContain(`127.0.0.1:${redis.port}`);
    await fromEnv.close();

    setEnv({ FILECONV_REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    const fromCode = await open({ redisUrl: redis.url });
    expect(fromCode.backends.description).toContain(`127.0.0.1:${redis.port}`);
  }, 30_000);
});
