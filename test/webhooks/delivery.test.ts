import { describe, expect, it, vi } from 'vitest';
import { createMemoryOutbox } from '../../src/adapters/outbox/memory.js';
import {
  createWebhookDispatcher,
  type WebhookDeliveryReport,
  type WebhookDispatcherOptions,
  type WebhookPayload,
} from '../../src/adapters/webhooks/http.js';
import { type Engine, verifyWebhookSignature } from '../../src/index.js';
import { createTextJob, onCleanup, startEngine, startReceiver, WEBHOOK_SECRET } from './setup.js';

/** A dispatcher allowed to reach the 127.0.0.1 receiver, with short backoffs; its reports collected. */
function dispatch(engine: Engine, options: Partial<WebhookDispatcherOptions> = {}) {
  const reports: WebhookDeliveryReport[] = [];
  const dispatcher = createWebhookDispatcher(engine, {
    secret: WEBHOOK_SECRET,
    allowPrivateAddresses: true,
    backoffMs: 5,
    onDelivery: (report) => reports.push(report),
    ...options,
  });
  onCleanup(() => dispatcher.close());
  return { dispatcher, reports };
}

describe('webhook delivery', () => {
  it('POSTs a completed job once, signed so that verifyWebhookSignature accepts it', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([200]);
    const { dispatcher, reports } = dispatch(engine);
    await engine.start();
    const job = await createTextJob(engine, 'md', receiver.url);
    expect(job.webhook).toEqual({
      url: receiver.url,
      status: 'pending',
      attempts: 0,
      lastError: null,
      deliveredAt: null,
    });
    await engine.waitForJob(job.id);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const { headers, body } = delivery!;
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toBe('fileconv-webhooks');
    expect(
      verifyWebhookSignature({
        secret: WEBHOOK_SECRET,
        body,
        header: headers['fileconv-signature'] as string,
      }),
    ).toBe(true);
    const payload = JSON.parse(body) as WebhookPayload;
    expect(payload).toMatchObject({
      id: headers['fileconv-delivery'],
      type: 'job.completed',
      job: { jobId: job.id, status: 'completed', downloadUrl: null, outputName: 'note.md' },
    });
    expect(Date.parse(payload.createdAt)).not.toBeNaN();

    const saved = await engine.getJob(job.id);
    expect(saved.status).toBe('completed');
    expect(saved.webhook).toMatchObject({ status: 'delivered', attempts: 1, lastError: null });
    expect(Date.parse(saved.webhook!.deliveredAt!)).not.toBeNaN();
    expect(reports).toEqual([
      expect.objectContaining({ jobId: job.id, type: 'job.completed', ok: true, attempts: 1, status: 200 }),
    ]);
  });

  it('retries 500s and delivers on the third attempt, with the same delivery id', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([500, 500, 200]);
    const { dispatcher } = dispatch(engine);
    await engine.start();
    const job = await createTextJob(engine, 'md', receiver.url);
    await engine.waitForJob(job.id);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(3);
    const ids = new Set(receiver.received.map((delivery) => delivery.headers['fileconv-delivery']));
    expect(ids.size).toBe(1);
    expect((await engine.getJob(job.id)).webhook).toMatchObject({ status: 'delivered', attempts: 3 });
  });

  it('gives up after maxAttempts, records the failure, and leaves the job completed and downloadable', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([500]);
    const { dispatcher, reports } = dispatch(engine, { maxAttempts: 4 });
    await engine.start();
    const job = await createTextJob(engine, 'md', receiver.url);
    await engine.waitForJob(job.id);
    await dispatcher.idle();

    expect(receiver.received).toHaveLength(4);
    const saved = await engine.getJob(job.id);
    expect(saved.status).toBe('completed');
    expect(saved.webhook).toMatchObject({
      status: 'failed',
      attempts: 4,
      lastError: 'receiver answered 500',
    });
    expect(reports).toEqual([expect.objectContaining({ ok: false, attempts: 4, status: 500 })]);
    const result = await engine.openResult(job.id, job.owner);
    const chunks: Buffer[] = [];
    for await (const chunk of result.stream) chunks.push(Buffer.from(chunk as Uint8Array));
    expect(Buffer.concat(chunks).toString()).toBe('hello\n');
  });

  it('does not retry other 4xx answers, nor follow redirects', async () => {
    const engine = await startEngine();
    const gone = await startReceiver([410]);
    const moved = await startReceiver([302]);
    const { dispatcher } = dispatch(engine);
    await engine.start();
    const first = await createTextJob(engine, 'md', gone.url);
    const second = await createTextJob(engine, 'md', moved.url);
    await engine.waitForJob(first.id);
    await engine.waitForJob(second.id);
    await dispatcher.idle();
    expect(gone.received).toHaveLength(1);
    expect(moved.received).toHaveLength(1);
    expect((await engine.getJob(first.id)).webhook).toMatchObject({ status: 'failed', attempts: 1 });
    expect((await engine.getJob(second.id)).webhook).toMatchObject({
      status: 'failed',
      lastError: 'redirect 302 not followed',
    });
  });

  it('honours 429 with Retry-After 0 and then delivers', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([429, 200]);
    const { dispatcher } = dispatch(engine);
    await engine.start();
    const job = await createTextJob(engine, 'md', receiver.url);
    await engine.waitForJob(job.id);
    await dispatcher.idle();
    expect((await engine.getJob(job.id)).webhook).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('sends job.failed and job.canceled; jobs without a webhookUrl send nothing', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([200]);
    const { dispatcher } = dispatch(engine);
    const canceled = await createTextJob(engine, 'md', receiver.url);
    await engine.cancelJob(canceled.id);
    await engine.start();
    const failed = await createTextJob(engine, 'html', receiver.url);
    const silent = await createTextJob(engine, 'md');
    await engine.waitForJob(failed.id);
    await engine.waitForJob(silent.id);
    await dispatcher.idle();
    const types = receiver.received.map((delivery) => (JSON.parse(delivery.body) as WebhookPayload).type);
    expect(types.sort()).toEqual(['job.canceled', 'job.failed']);
    expect((await engine.getJob(failed.id)).status).toBe('failed');
    expect((await engine.getJob(silent.id)).webhook).toBeUndefined();
  });

  it('keeps a retry in the outbox past its dispatcher: the next one on that outbox delivers it', async () => {
    const engine = await startEngine();
    const receiver = await startReceiver([503, 200]);
    const outbox = createMemoryOutbox();
    const first = createWebhookDispatcher(engine, {
      secret: WEBHOOK_SECRET,
      allowPrivateAddresses: true,
      backoffMs: 60_000,
      outbox,
    });
    await engine.start();
    const job = await createTextJob(engine, 'md', receiver.url);
    await engine.waitForJob(job.id);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1));
    // The retry is a minute away when this dispatcher stops (as a process would on a restart).
    await first.close();
    expect((await engine.getJob(job.id)).webhook).toMatchObject({ status: 'pending' });
    const [waiting] = await outbox.claimDue(Date.now() + 120_000, 1, 1);
    expect(waiting).toMatchObject({ jobId: job.id, attempts: 1, lastError: 'receiver answered 503' });
    // Due now: what a restarted process finds once the backoff has passed.
    await outbox.reschedule({ ...waiting!, dueAt: Date.now() });
    const { dispatcher } = dispatch(engine, { outbox });
    await dispatcher.idle();
    await vi.waitFor(async () =>
      expect((await engine.getJob(job.id)).webhook).toMatchObject({ status: 'delivered', attempts: 2 }),
    );
    expect(receiver.received).toHaveLength(2);
    const ids = receiver.received.map((delivery) => delivery.headers['fileconv-delivery']);
    expect(ids[0]).toBe(ids[1]);
  });

  it('needs a secret', async () => {
    const engine = await startEngine();
    expect(() => createWebhookDispatcher(engine, {} as WebhookDispatcherOptions)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => createWebhookDispatcher(engine, { secret: 'short' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});
