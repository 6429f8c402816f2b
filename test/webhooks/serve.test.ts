/**
 * `fileconv serve` with FILECONV_WEBHOOK_SECRET: a job created over HTTP with a webhookUrl is
 * delivered, signed with that secret (in the Standard Webhooks format, as a new deployment
 * configures it) for a Standard Webhooks library and for the deprecated Fileconv-Signature, and
 * the job view shows the delivery.
 */
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startService } from '../../bin/commands/serve.js';
import type { WebhookPayload } from '../../src/adapters/webhooks/http.js';
import { verifyWebhookSignature } from '../../src/index.js';
import { tempDir } from '../helpers/temp.js';
import { createWebhookJobOverHttp, startReceiver } from './setup.js';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['FILECONV_WEBHOOK_SECRET', 'FILECONV_WEBHOOK_ALLOW_PRIVATE']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('fileconv serve with webhooks', () => {
  it('delivers the job.completed event signed with FILECONV_WEBHOOK_SECRET', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    process.env.FILECONV_WEBHOOK_SECRET = secret;
    // The receiver is on this machine; a name (not a literal IP) passes job creation.
    process.env.FILECONV_WEBHOOK_ALLOW_PRIVATE = '1';
    const receiver = await startReceiver([200]);
    const service = await startService({ data: await tempDir(), port: 0, host: '127.0.0.1', log: false });
    try {
      const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#08f' } })
        .png()
        .toBuffer();
      const webhookUrl = receiver.url.replace('127.0.0.1', 'localhost');
      const jobId = await createWebhookJobOverHttp(service.url, png, webhookUrl);
      await service.engine.waitForJob(jobId);
      await expect
        .poll(async () => (await service.engine.getJob(jobId)).webhook?.status, { timeout: 15_000 })
        .toBe('delivered');
      expect(receiver.received).toHaveLength(1);
      const { headers, body } = receiver.received[0]!;
      const standard = Object.fromEntries(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(headers[name])]),
      );
      const payload = new Webhook(secret).verify(body, standard) as WebhookPayload;
      expect(payload.job).toMatchObject({ jobId, status: 'completed' });
      const header = headers['fileconv-signature'] as string;
      expect(verifyWebhookSignature({ secret, body, header })).toBe(true);
      const view = await fetch(`${service.url}/api/jobs/${jobId}`).then((response) => response.json());
      expect(view).toMatchObject({
        status: 'completed',
        webhook: { url: webhookUrl, status: 'delivered', attempts: 1 },
      });
    } finally {
      await service.stop();
    }
  });
});
