/**
 * Standard Webhooks end to end: deliveries made by the real dispatcher and received over HTTP
 * verify with the `standardwebhooks` library (the spec's reference implementation for
 * JavaScript), for a `whsec_` secret and for a plain secret given to the library as `whsec_` +
 * base64 of its UTF-8 bytes; every attempt of a retried delivery carries the same webhook-id; a
 * tampered body, id or secret fails; the deprecated Fileconv-Signature still verifies.
 */
import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createWebhookDispatcher, type WebhookPayload } from '../../src/adapters/webhooks/http.js';
import { type Engine, verifyWebhookSignature } from '../../src/index.js';
import {
  createTextJob,
  onCleanup,
  type ReceivedDelivery,
  type Receiver,
  startEngine,
  startReceiver,
  WEBHOOK_SECRET,
} from './setup.js';

/** A fresh secret in the spec's format, as a deployment would generate one. */
function standardSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks headers of a received request, as the library takes them. */
function standardHeaders(delivery: ReceivedDelivery): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = delivery.headers[name];
    expect(typeof value, name).toBe('string');
    headers[name] = value as string;
  }
  return headers;
}

/** Runs one md job through a dispatcher signing with `secret`; resolves once its delivery is settled. */
async function deliverOne(secret: string, statuses: number[] = [200]): Promise<Receiver> {
  const engine: Engine = await startEngine();
  const receiver = await startReceiver(statuses);
  const dispatcher = createWebhookDispatcher(engine, { secret, allowPrivateAddresses: true, backoffMs: 5 });
  onCleanup(() => dispatcher.close());
  await engine.start();
  const job = await createTextJob(engine, 'md', receiver.url);
  await engine.waitForJob(job.id);
  await dispatcher.idle();
  expect((await engine.getJob(job.id)).webhook).toMatchObject({ status: 'delivered' });
  return receiver;
}

describe('Standard Webhooks deliveries', () => {
  it('verify with the standardwebhooks library for a whsec_ secret', async () => {
    const secret = standardSecret();
    const receiver = await deliverOne(secret);
    expect(receiver.received).toHaveLength(1);
    const delivery = receiver.received[0]!;
    const headers = standardHeaders(delivery);

    const payload = new Webhook(secret).verify(delivery.body, headers) as WebhookPayload;
    expect(payload.type).toBe('job.completed');
    // One id for the delivery, wherever a receiver looks for it.
    expect(headers['webhook-id']).toBe(payload.id);
    expect(delivery.headers['fileconv-delivery']).toBe(payload.id);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // One timestamp for the attempt in both signatures.
    expect(delivery.headers['fileconv-signature']).toMatch(
      new RegExp(`^t=${headers['webhook-timestamp']},v1=`),
    );
    // The deprecated header is signed as before: with the secret's text, whsec_ prefix included.
    expect(
      verifyWebhookSignature({
        secret,
        body: delivery.body,
        header: delivery.headers['fileconv-signature'] as string,
      }),
    ).toBe(true);
  });

  it('verify for a plain secret given to the library as whsec_ + base64 of its UTF-8 bytes', async () => {
    const receiver = await deliverOne(WEBHOOK_SECRET);
    const delivery = receiver.received[0]!;
    const librarySecret = `whsec_${Buffer.from(WEBHOOK_SECRET, 'utf8').toString('base64')}`;
    const payload = new Webhook(librarySecret).verify(
      delivery.body,
      standardHeaders(delivery),
    ) as WebhookPayload;
    expect(payload.type).toBe('job.completed');
    expect(
      verifyWebhookSignature({
        secret: WEBHOOK_SECRET,
        body: delivery.body,
        header: delivery.headers['fileconv-signature'] as string,
      }),
    ).toBe(true);
  });

  it('carry the same webhook-id on every attempt of a retried delivery, each attempt verifying', async () => {
    const secret = standardSecret();
    const receiver = await deliverOne(secret, [500, 503, 200]);
    expect(receiver.received).toHaveLength(3);
    const webhook = new Webhook(secret);
    const ids = receiver.received.map((delivery) => {
      const headers = standardHeaders(delivery);
      const payload = webhook.verify(delivery.body, headers) as WebhookPayload;
      expect(headers['webhook-id']).toBe(payload.id);
      return headers['webhook-id'];
    });
    expect(new Set(ids).size).toBe(1);
    expect(new Set(receiver.received.map((delivery) => delivery.body)).size).toBe(1);
  });

  it('fail verification when the body, the id or the secret is not the one signed', async () => {
    const secret = standardSecret();
    const receiver = await deliverOne(secret);
    const delivery = receiver.received[0]!;
    const headers = standardHeaders(delivery);
    const webhook = new Webhook(secret);
    // The signed delivery itself passes, so each refusal below is the change's doing.
    expect(() => webhook.verify(delivery.body, headers)).not.toThrow();

    const tampered = delivery.body.replace('"job.completed"', '"job.failed"');
    expect(tampered).not.toBe(delivery.body);
    expect(() => webhook.verify(tampered, headers)).toThrow(WebhookVerificationError);
    expect(() =>
      webhook.verify(delivery.body, { ...headers, 'webhook-id': `${headers['webhook-id']}0` }),
    ).toThrow(WebhookVerificationError);
    expect(() => new Webhook(standardSecret()).verify(delivery.body, headers)).toThrow(
      WebhookVerificationError,
    );
    // The deprecated header refuses the tampered body too.
    expect(() =>
      verifyWebhookSignature({
        secret,
        body: tampered,
        header: delivery.headers['fileconv-signature'] as string,
      }),
    ).toThrow(expect.objectContaining({ code: 'SIGNATURE_INVALID' }));
  });

  it('are refused at the start for a whsec_ secret that is not padded base64', async () => {
    const engine = await startEngine();
    const unpadded = `whsec_${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
    expect(() => createWebhookDispatcher(engine, { secret: unpadded })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
  });
});
