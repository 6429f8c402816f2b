import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createWebhookDispatcher, type WebhookDeliveryReport } from '../../src/adapters/webhooks/http.js';
import { parseRetryAfter } from '../../src/adapters/webhooks/transport.js';
import { blockedRange, pinnedLookup } from '../../src/kit/net/addresses.js';
import { checkedAddresses } from '../../src/kit/net/safe-request.js';
import { call, expectError, startServer, uploadA } from '../http/harness.js';
import { createTextJob, onCleanup, startEngine, startReceiver, WEBHOOK_SECRET } from './setup.js';

describe('webhook address rules', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedRange(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(blockedRange(address)).toBeNull();
  });

  it('connects to the checked address, not to what DNS answers later (no rebinding)', async () => {
    const receiver = await startReceiver([204]);
    // .invalid never resolves: reaching the receiver proves the connection used the pinned address.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(
        `http://rebind.invalid:${receiver.port}/hook`,
        { method: 'POST', agent: false, lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]) },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(204);
    expect(receiver.received[0]!.headers.host).toBe(`rebind.invalid:${receiver.port}`);
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(61_000).toUTCString(), 1_000)).toBe(60_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it('sends nothing to private targets and records why on the job', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([200]);
    const reports: WebhookDeliveryReport[] = [];
    // allowPrivateAddresses left at its default (false).
    const dispatcher = createWebhookDispatcher(engine, {
      secret: WEBHOOK_SECRET,
      backoffMs: 5,
      onDelivery: (report) => reports.push(report),
    });
    onCleanup(() => dispatcher.close());
    await engine.start();
    const targets = [
      `http://127.0.0.1:${receiver.port}/hook`,
      `http://localhost:${receiver.port}/hook`,
      `http://[::1]:${receiver.port}/hook`,
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:127.0.0.1]/hook',
    ];
    const jobs = [];
    for (const url of targets) jobs.push(await createTextJob(engine, 'md', url));
    for (const job of jobs) await engine.waitForJob(job.id);
    await dispatcher.idle();

    expect(receiver.received).toEqual([]);
    for (const job of jobs) {
      const saved = await engine.getJob(job.id);
      expect(saved.status).toBe('completed');
      // Refused at once, not retried: the address will not become public by waiting.
      expect(saved.webhook).toMatchObject({ status: 'failed', attempts: 1 });
      expect(saved.webhook!.lastError).toMatch(/^refused: .* resolves to .*, a \w+ address/);
    }
    expect(reports).toHaveLength(targets.length);
    expect(reports.every((report) => !report.ok && report.status === null)).toBe(true);
  });

  it('with private addresses allowed, still never reaches link-local or metadata addresses (as a captured page)', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([200]);
    const reports: WebhookDeliveryReport[] = [];
    const dispatcher = createWebhookDispatcher(engine, {
      secret: WEBHOOK_SECRET,
      backoffMs: 5,
      allowPrivateAddresses: true,
      onDelivery: (report) => reports.push(report),
    });
    onCleanup(() => dispatcher.close());
    await engine.start();
    const intranet = await createTextJob(engine, 'md', `http://127.0.0.1:${receiver.port}/hook`);
    const metadata = await createTextJob(engine, 'md', 'http://169.254.169.254/latest/meta-data/');
    for (const job of [intranet, metadata]) await engine.waitForJob(job.id);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    expect((await engine.getJob(intranet.id)).webhook).toMatchObject({ status: 'delivered' });
    const refused = (await engine.getJob(metadata.id)).webhook!;
    expect(refused).toMatchObject({ status: 'failed', attempts: 1 });
    expect(refused.lastError).toMatch(/169\.254\.169\.254, a linkLocal address/);
    // The same rule, from the one check both webhooks and captured pages go through.
    await expect(checkedAddresses(new URL('http://[fd00:ec2::254]/'), true)).rejects.toThrow(/uniqueLocal/);
    await expect(checkedAddresses(new URL('http://10.1.2.3/'), true)).resolves.toHaveLength(1);
  });

  it('refuses a literal private IP already at job creation, through the HTTP API', async () => {
    const server = await startServer();
    const bytes = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
      'base64',
    );
    const { fileKey } = await uploadA(server, bytes, 'dot.png', 'image/png');
    const body = { fileKey, sourceFormat: 'png', targetFormat: 'webp', fileSize: bytes.length };
    for (const webhookUrl of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/hook',
      'https://[::1]/hook',
      'http://0x7f.1/hook',
      'ftp://example.com/hook',
      'not a url',
      `https://example.com/${'x'.repeat(2048)}`,
      'https://user:pass@example.com/hook',
    ]) {
      const response = await call(server, 'POST', '/api/jobs/create', { json: { ...body, webhookUrl } });
      expectError(response, 400, 'INVALID_REQUEST');
      expect(response.body.error.message).toMatch(/webhookUrl/);
    }
    // A public name passes creation (it is resolved and checked at delivery) and shows on the job.
    const created = await call(server, 'POST', '/api/jobs/create', {
      json: { ...body, webhookUrl: 'https://hooks.example.com/fileconv' },
    });
    expect(created.status, created.text).toBe(200);
    const job = await call(server, 'GET', `/api/jobs/${created.body.jobId}`);
    expect(job.body.webhook).toMatchObject({ url: 'https://hooks.example.com/fileconv', status: 'pending' });
  });
});
