import { createServer } from 'node:net';
import { once } from 'node:events';
import { EgressPolicy } from '@trawl/egress';
import { createTestTls, WebhookReceiver } from '../../../test/fixtures/webhook-receiver';
import { WebhookDeliveryClient } from './delivery-client';
import { newSigningSecret } from './signature';

describe(WebhookDeliveryClient.name, () => {
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  const policy = new EgressPolicy({
    hostMap: new Map([
      ['hooks.test', '127.0.0.1'],
      ['closed.test', '127.0.0.1'],
    ]),
  });
  let client: WebhookDeliveryClient;
  const secret = newSigningSecret();

  beforeAll(async () => {
    await receiver.start();
    receiver.trust('kid_a', secret);
    client = new WebhookDeliveryClient({ policy, timeoutMs: 1_000, extraCaPem: tls.caPem });
  });

  afterAll(async () => {
    await client.close();
    await receiver.stop();
  });

  beforeEach(() => {
    receiver.failNext(0);
    receiver.hang(false);
  });

  describe('send', () => {
    it('POSTs the exact body with the spec headers and a signature the receiver verifies', async () => {
      const body = JSON.stringify({ schema: 'service.webhook/v1', event_id: 'e-1' });
      const result = await client.send({ url: receiver.url('/a'), eventId: 'e-1', body, signingKey: { kid: 'kid_a', secret } });
      expect(result).toMatchObject({ delivered: true, statusCode: 200 });
      expect(result.error).toBeUndefined();
      const [got] = receiver.forEvent('e-1');
      expect(got.rawBody.toString()).toBe(body);
      expect(got.signature).toBe('ok');
      expect(got.kid).toBe('kid_a');
      expect(got.headers['content-type']).toBe('application/json');
      expect(got.headers['user-agent']).toBe('service-webhook/v1');
    });

    it('sends no X-Signature without a key', async () => {
      await client.send({ url: receiver.url(), eventId: 'e-2', body: '{}' });
      expect(receiver.forEvent('e-2')[0].signature).toBe('missing');
    });

    it('counts only 2xx as delivered and names the status class', async () => {
      receiver.failNext(1, 503);
      expect(await client.send({ url: receiver.url(), eventId: 'e-3', body: '{}' })).toMatchObject({
        delivered: false,
        statusCode: 503,
        error: 'http_5xx:503',
      });
      receiver.failNext(1, 404);
      expect((await client.send({ url: receiver.url(), eventId: 'e-4', body: '{}' })).error).toBe('http_4xx:404');
    });

    it('does not follow redirects', async () => {
      receiver.failNext(1, 302);
      const result = await client.send({ url: receiver.url(), eventId: 'e-5', body: '{}' });
      expect(result).toMatchObject({ delivered: false, statusCode: 302, error: 'http_3xx:302' });
      expect(receiver.received.filter((r) => r.path === '/elsewhere')).toHaveLength(0);
    });

    it('gives up on a receiver that does not answer within the deadline', async () => {
      receiver.hang(true);
      const result = await client.send({ url: receiver.url(), eventId: 'e-6', body: '{}' });
      expect(result).toMatchObject({ delivered: false, statusCode: null, error: 'timeout' });
      expect(result.elapsedMs).toBeGreaterThanOrEqual(900);
    });

    it('refuses http, hosts the egress policy refuses, and names connection and TLS failures', async () => {
      expect((await client.send({ url: `http://hooks.test:${receiver.port}/`, eventId: 'x', body: '{}' })).error).toBe('https_required');
      expect((await client.send({ url: `https://127.0.0.1:${receiver.port}/`, eventId: 'x', body: '{}' })).error).toBe('egress_refused');
      expect((await client.send({ url: 'https://10.1.2.3/', eventId: 'x', body: '{}' })).error).toBe('egress_refused');
      expect((await client.send({ url: `https://closed.test:${await closedPort()}/`, eventId: 'x', body: '{}' })).error).toBe(
        'connection_refused',
      );
      const untrusting = new WebhookDeliveryClient({ policy, timeoutMs: 1_000 });
      try {
        expect((await untrusting.send({ url: receiver.url(), eventId: 'x', body: '{}' })).error).toBe('tls_error');
      } finally {
        await untrusting.close();
      }
    });
  });
});

async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
