/**
 * Limits as an operator sets them on a real `fileconv serve` process: --no-limits turns rate
 * limits and quotas off (and says so at start), --plans raises the Free plan's daily conversions
 * (the start-up line names the numbers in force; the first refusal tells the operator's log how
 * to lift them, never the client),
 * a broken plans file stops the start with a message naming the file and the field, health and
 * readiness answer every probe, and `fileconv formats` lists no audio target for an image.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitsFromEnv, loadPlansFile } from '../src/preset/limits-config.js';
import { fixtures } from '../src/testing/index.js';
import { CLI_ARGS, exited, type ServeProcess, startServeProcess } from './helpers/serve-process.js';

let root: string;
let png: Buffer;
const running: ServeProcess[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fileconv-serve-limits-'));
  png = await readFile(fixtures.png!);
});

afterAll(async () => {
  for (const serve of running) {
    serve.child.kill('SIGTERM');
    await exited(serve.child);
  }
  await rm(root, { recursive: true, force: true });
});

async function serve(name: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const started = await startServeProcess(['--data', join(root, name), '--no-web', '--no-log', ...args], {
    ...process.env,
    ...env,
  });
  running.push(started);
  return started;
}

/** One Free conversion through Flow B (upload, convert): the convert answer. */
async function convertOnce(url: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([png]), 'a.png');
  const uploaded = await fetch(`${url}/api/upload`, { method: 'POST', body: form });
  expect(uploaded.status).toBe(200);
  const { fileId } = (await uploaded.json()) as { fileId: string };
  return fetch(`${url}/api/convert`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fileId, fileName: 'a.png', targetFormat: 'webp' }),
  });
}

describe('fileconv serve limits', () => {
  it('--no-limits: a sixth Free conversion succeeds, nothing is rate-limited, and the start says so', async () => {
    const service = await serve('no-limits', ['--no-limits']);
    // Printed right after the line the helper waits for.
    for (let waited = 0; !/limits off/.test(service.stdout()) && waited < 5000; waited += 50) await sleep(50);
    expect(service.stdout()).toMatch(
      /fileconv: limits off \(flag --no-limits\): no limits: no rate limits and no quotas/,
    );
    expect(service.stdout()).not.toMatch(/fileconv: limits: /);
    for (let conversion = 1; conversion <= 6; conversion++) {
      const converted = await convertOnce(service.url);
      expect(converted.status, `conversion ${conversion}: ${await converted.clone().text()}`).toBe(200);
      expect(converted.headers.get('ratelimit-policy')).toBeNull();
    }
    const usage = (await (await fetch(`${service.url}/api/usage`)).json()) as {
      quotas: { conversions: { limit: number | null } };
      rateLimits: unknown[];
    };
    expect(usage.quotas.conversions.limit).toBeNull();
    expect(usage.rateLimits).toEqual([]);
  });

  it('--plans raising Free to 7 conversions a day: the start says so, the 8th is QUOTA_EXCEEDED (the operator hears how to lift it, the client does not); health and readiness are never limited', async () => {
    const plans = join(root, 'plans.json');
    await writeFile(
      plans,
      JSON.stringify({
        free: { conversionsPerDay: 7, uploadRequestsPerMinute: 30 },
        plus: { conversionsPerDay: 250 },
      }),
    );
    const service = await serve('plans', ['--plans', plans]);
    for (let waited = 0; !/fileconv: limits: /.test(service.stdout()) && waited < 5000; waited += 50)
      await sleep(50);
    expect(service.stdout()).not.toMatch(/limits off/);
    // The numbers are those of the plans in force (the file merged into the defaults), with the ways to change them.
    const line = /fileconv: limits: .*/.exec(service.stdout())?.[0];
    expect(line).toContain(
      'Free (no API key, per IP address) 7 conversions/day, 30 uploads/min, 60 other requests/min',
    );
    expect(line).toContain('files up to 25 MB');
    expect(line).toContain('with an API key: Plus 250 conversions/day, Pro unlimited conversions');
    expect(line).toContain('change with --plans <file>');
    expect(line).toContain('fileconv keys create');
    expect(line).toContain('turn off with --no-limits');
    // Listening on loopback only: no proxy can stand between, nothing to warn about.
    expect(service.stdout()).not.toContain('--trust-proxy');
    for (let conversion = 1; conversion <= 7; conversion++) {
      const converted = await convertOnce(service.url);
      expect(converted.status, `conversion ${conversion}: ${await converted.clone().text()}`).toBe(200);
    }
    const eighth = await convertOnce(service.url);
    expect(eighth.status).toBe(429);
    const body = (await eighth.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('QUOTA_EXCEEDED');
    expect(body.error.message).toContain('7 conversions per day');
    // The client's message stays the client's: how to lift limits is the operator's business.
    expect(body.error.message).not.toMatch(/--plans|--no-limits|keys create/);
    const notice = /a client reached a quota/;
    for (let waited = 0; !notice.test(service.stdout()) && waited < 5000; waited += 50) await sleep(50);
    const said = service
      .stdout()
      .split('\n')
      .filter((text) => notice.test(text));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('QUOTA_EXCEEDED, POST /api/convert');
    expect(said[0]).toContain('change with --plans <file>');

    // 100 probes each from this one address: far past the 60 a minute of every other endpoint.
    for (let probe = 1; probe <= 100; probe++) {
      for (const path of ['/api/health', '/api/ready']) {
        const answer = await fetch(`${service.url}${path}`);
        await answer.arrayBuffer();
        expect([200, 503], `${path} probe ${probe}`).toContain(answer.status);
      }
    }
  });

  it('FILECONV_PLANS naming a broken file: the start fails, naming the file and the field', async () => {
    const broken = join(root, 'broken-plans.json');
    await writeFile(broken, JSON.stringify({ free: { conversionsPerDay: 'lots' } }));
    const failed = serve('broken', [], { FILECONV_PLANS: broken });
    await expect(failed).rejects.toThrow(/exited \(1\)/);
    const message = await failed.catch((error: Error) => error.message);
    expect(message).toContain(broken);
    expect(message).toContain('plan "free" field "conversionsPerDay" must be a non-negative integer or null');
    expect(message).toContain('[INVALID_OPTIONS]');
  });

  it('`fileconv formats` lists no audio target for png', async () => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'formats', '--json'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await exited(child);
    const rows = JSON.parse(out) as { name: string; targets: string[] }[];
    const targetsOf = (name: string) => rows.find((row) => row.name === name)!.targets;
    expect(targetsOf('png')).toContain('gif');
    for (const audio of ['mp3', 'wav', 'flac']) {
      expect(targetsOf('png')).not.toContain(audio);
      expect(targetsOf('jpg')).not.toContain(audio);
      expect(targetsOf('gif')).not.toContain(audio);
    }
    expect(targetsOf('mp4')).toContain('mp3');
  });
});

describe('plans file and FILECONV_LIMITS', () => {
  it('merges a plans file into the default plans', async () => {
    const file = join(root, 'merge.json');
    await writeFile(
      file,
      JSON.stringify({ free: { conversionsPerDay: null }, plus: { maxFileBytes: 1024 } }),
    );
    const plans = await loadPlansFile(file);
    expect(plans.free!.conversionsPerDay).toBeNull();
    expect(plans.free!.maxFileBytes).toBe(25 * 1024 * 1024);
    expect(plans.plus!.maxFileBytes).toBe(1024);
    expect(plans.pro!.label).toBe('Pro');
  });

  it('refuses a missing file, bad JSON and a non-object, naming the file', async () => {
    const missing = join(root, 'missing.json');
    await expect(loadPlansFile(missing)).rejects.toThrow(
      `Plans file ${missing}: cannot be read (no such file)`,
    );
    const bad = join(root, 'bad.json');
    await writeFile(bad, '{ free: ');
    await expect(loadPlansFile(bad)).rejects.toThrow(`Plans file ${bad}: not valid JSON`);
    await writeFile(bad, '[1]');
    await expect(loadPlansFile(bad)).rejects.toThrow(/must hold a JSON object of plans by name/);
    await writeFile(bad, JSON.stringify({ free: { conversionsPerDy: 3 } }));
    await expect(loadPlansFile(bad)).rejects.toThrow(
      `Plans file ${bad}: plan "free" field "conversionsPerDy" is not a plan field`,
    );
  });

  it('reads FILECONV_LIMITS: off, on (or any boolean spelling), unset; anything else is refused', () => {
    expect(limitsFromEnv('off')).toBe(false);
    expect(limitsFromEnv('OFF')).toBe(false);
    expect(limitsFromEnv('on')).toBe(true);
    expect(limitsFromEnv(undefined)).toBe(true);
    expect(limitsFromEnv('')).toBe(true);
    // One boolean syntax for every setting (issue 27): 'no' was refused before, it is off now.
    expect(limitsFromEnv('no')).toBe(false);
    expect(() => limitsFromEnv('maybe')).toThrow(
      'FILECONV_LIMITS must be 1/0, true/false, on/off or yes/no (any case), got "maybe".',
    );
  });
});
