import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { createLogger } from '@trawl/observability';
import { waitFor } from '@trawl/testing';
import { Registry } from 'prom-client';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { AuthError, AuthErrorCode } from '../src/auth/auth.errors';
import { FetchError, FetchErrorCode } from '../src/fetch/fetch.errors';
import type { FetchAnswer, FetchCall } from '../src/fetch/fetch.service';
import type { UsageHeaders } from '../src/fetch/usage-headers';
import { createCertificateAuthority } from '../src/proxy-mode/certificate-authority';
import { LeafCertificates } from '../src/proxy-mode/leaf-certificates';
import { ProxiedRequestHandler } from '../src/proxy-mode/proxied-request';
import { ProxyModeMetrics } from '../src/proxy-mode/proxy-mode.metrics';
import type { ProxyAuthenticator, ProxyFetcher } from '../src/proxy-mode/proxy-mode.ports';
import { ProxyModeServer } from '../src/proxy-mode/proxy-mode.server';

const KEY = 'a'.repeat(40);
const UNKNOWN_KEY = 'b'.repeat(40);
const TENANT = { tenantId: 'tenant-1', keyId: 'key-1' };

/** The Fetch pipeline's seam, recording each call and answering what it was asked. */
class RecordingFetcher implements ProxyFetcher {
  readonly calls: FetchCall[] = [];

  async fetch(call: FetchCall): Promise<FetchAnswer> {
    this.calls.push(call);
    call.usage.concurrency(5, 1);
    call.usage.billed(1);
    const echo = { method: call.method, query: call.query, body: call.body?.toString('utf8') ?? null };
    return {
      status: 200,
      contentType: 'application/json',
      headers: { 'zr-final-url': String(call.query.url) },
      body: Buffer.from(JSON.stringify(echo)),
    };
  }

  async refuseMethod(_tenantId: string, method: string | undefined, usage: UsageHeaders): Promise<never> {
    usage.concurrency(5, 2);
    throw new FetchError(FetchErrorCode.MethodNotAllowed, `${method ?? 'This method'} does not fetch a page.`);
  }
}

const authenticator: ProxyAuthenticator = {
  async authenticate(presented) {
    if (presented === KEY) return TENANT;
    throw new AuthError(AuthErrorCode.KeyNotFound, 'This API key does not exist or was revoked; use a current key.');
  },
};

describe(ProxyModeServer.name, () => {
  const ca = createCertificateAuthority({ commonName: 'Proxy mode test CA' });
  const registry = new Registry();
  const metrics = new ProxyModeMetrics(registry);
  // At info, as operators run it: refusals are found in it by their instance.
  const logLines: string[] = [];
  const logger = createLogger('proxy-mode-test', 'info', { write: (line: string) => void logLines.push(line) });
  const fetcher = new RecordingFetcher();
  let server: ProxyModeServer;
  let proxyUrl: string;
  let port: number;

  beforeAll(async () => {
    const handler = new ProxiedRequestHandler(authenticator, fetcher, undefined, metrics, logger, {
      bodyLimitBytes: 1024,
      creditPriceUsd: 0.0001,
    });
    server = new ProxyModeServer(handler, authenticator, undefined, new LeafCertificates(ca), metrics, logger, {
      host: '127.0.0.1',
      port: 0,
      drainTimeoutMs: 10_000,
    });
    ({ port } = await server.start());
    proxyUrl = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await server.stop();
    await server.stop();
  });

  beforeEach(() => {
    fetcher.calls.length = 0;
  });

  function proxyAgent(password: string, options: { tunnel?: boolean; key?: string } = {}): ProxyAgent {
    // As clients send `http://<apikey>:<params>@host:port`; undici drops an empty password, so the token is explicit.
    return new ProxyAgent({
      uri: `http://127.0.0.1:${port}`,
      token: `Basic ${Buffer.from(`${options.key ?? KEY}:${password}`).toString('base64')}`,
      requestTls: { ca: ca.certPem },
      proxyTunnel: options.tunnel ?? true,
    });
  }

  async function counted(name: string, labels: Record<string, string>): Promise<number> {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
    return value?.value ?? 0;
  }

  /** Sends raw bytes to the proxy and reads its whole answer (it closes the connection). */
  async function raw(bytes: string): Promise<string> {
    const socket = netConnect(port, '127.0.0.1');
    socket.write(bytes);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await once(socket, 'close');
    return Buffer.concat(chunks).toString('utf8');
  }

  describe('plain HTTP (absolute form)', () => {
    it('runs the pipeline with the URL, method, body, forwarded headers and the password options', async () => {
      const agent = proxyAgent('original_status=true&response_type=plaintext', { tunnel: false });
      const res = await undiciRequest('http://shop.test:8080/cart?id=1', {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-custom': 'yes' },
        body: '{"a":1}',
      });
      const echo = (await res.body.json()) as { method: string; query: Record<string, string>; body: string };
      await agent.close();
      expect(res.statusCode).toBe(200);
      expect(res.headers['zr-final-url']).toBe('http://shop.test:8080/cart?id=1');
      expect(res.headers).toMatchObject({
        'concurrency-limit': '5',
        'concurrency-remaining': '4',
        'x-request-credits': '1',
        'x-request-cost': '0.0001',
      });
      expect(echo).toEqual({
        method: 'POST',
        query: { custom_headers: 'true', original_status: 'true', response_type: 'plaintext', url: 'http://shop.test:8080/cart?id=1' },
        body: '{"a":1}',
      });
      const [call] = fetcher.calls;
      expect(call.tenant).toEqual(TENANT);
      expect(call.headers['x-custom']).toBe('yes');
      expect(await counted('trawl_proxy_mode_requests_total', { kind: 'http', outcome: 'answered' })).toBeGreaterThanOrEqual(1);
    });

    it.each([
      ['missing', undefined],
      ['not Basic', `Bearer ${KEY}`],
      ['not base64', 'Basic ***'],
      ['without a colon', `Basic ${Buffer.from(KEY).toString('base64')}`],
      ['with a malformed key', `Basic ${Buffer.from('short:js_render=true').toString('base64')}`],
    ])('answers 407 AUTH007 with Proxy-Authenticate when credentials are %s', async (_what, header) => {
      const res = await plainRequest('http://shop.test/', header);
      expect(res.status).toBe(407);
      expect(res.headers['proxy-authenticate']).toBe('Basic realm="trawl"');
      expect(res.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(res.body)).toMatchObject({ status: 407, code: 'AUTH007', title: expect.any(String), instance: expect.any(String) });
      expect(res.headers['x-request-id']).toEqual(expect.any(String));
      expect(fetcher.calls).toHaveLength(0);
    });

    it('answers 407 AUTH003 for a key of the right format that does not exist', async () => {
      const res = await plainRequest('http://shop.test/', `Basic ${Buffer.from(`${UNKNOWN_KEY}:`).toString('base64')}`);
      expect({ status: res.status, code: JSON.parse(res.body).code, auth: res.headers['proxy-authenticate'] }).toEqual({
        status: 407,
        code: 'AUTH003',
        auth: 'Basic realm="trawl"',
      });
    });

    it('refuses an origin-form request and other verbs with the Fetch codes', async () => {
      const auth = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
      const origin = await plainRequest('/v1/', auth);
      expect({ status: origin.status, code: JSON.parse(origin.body).code }).toEqual({ status: 400, code: 'REQS004' });
      const del = await plainRequest('http://shop.test/', auth, 'DELETE');
      expect({ status: del.status, code: JSON.parse(del.body).code }).toEqual({ status: 405, code: 'REQS005' });
      // The refusal carries the tenant's concurrency like every answer (the pipeline's refuseMethod fills it in).
      expect({ limit: del.headers['concurrency-limit'], remaining: del.headers['concurrency-remaining'] }).toEqual({
        limit: '5',
        remaining: '3',
      });
      expect(fetcher.calls).toHaveLength(0);
    });

    it('logs each refusal at info with its instance, tenant and code, never the key', async () => {
      const auth = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
      const del = await plainRequest('http://shop.test/', auth, 'DELETE');
      const { instance } = JSON.parse(del.body) as { instance: string };
      const entries = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(entries.find((entry) => entry.instance === instance)).toMatchObject({
        level: 30,
        tenant_id: TENANT.tenantId,
        method: 'DELETE',
        route: 'proxy_mode',
        status: 405,
        code: 'REQS005',
      });
      await plainRequest('http://shop.test/', `Basic ${Buffer.from(`${UNKNOWN_KEY}:`).toString('base64')}`);
      expect(logLines.join('\n')).not.toMatch(new RegExp(`${KEY}|${UNKNOWN_KEY}|${Buffer.from(`${KEY}:`).toString('base64')}`));
    });

    it('refuses a body over the limit with 400 REQS004 naming the body, and closes the connection', async () => {
      const auth = `Basic ${Buffer.from(`${KEY}:`).toString('base64')}`;
      const res = await plainRequest('http://shop.test/', auth, 'POST', 'x'.repeat(2048));
      const body = JSON.parse(res.body);
      expect({ status: res.status, code: body.code, parameter: body.parameter, connection: res.headers.connection }).toEqual({
        status: 400,
        code: 'REQS004',
        parameter: 'body',
        connection: 'close',
      });
    });
  });

  describe('CONNECT', () => {
    it('terminates TLS for a client that trusts the CA and runs each request through the pipeline', async () => {
      const agent = proxyAgent('js_render=true');
      const urls = ['https://shop.test/a', 'https://shop.test/b?x=1', 'https://shop.test/c'];
      for (const url of urls) {
        const res = await undiciRequest(url, { dispatcher: agent });
        expect(res.statusCode).toBe(200);
        expect(((await res.body.json()) as { query: { url: string } }).query.url).toBe(url);
      }
      await agent.close();
      expect(fetcher.calls.map((call) => call.query)).toEqual(urls.map((url) => ({ custom_headers: 'true', js_render: 'true', url })));
      expect(await counted('trawl_proxy_mode_requests_total', { kind: 'https', outcome: 'answered' })).toBeGreaterThanOrEqual(3);
    });

    it('keeps the tunnel alive for several requests', async () => {
      const tunnelsBefore = await counted('trawl_proxy_mode_connects_total', { outcome: 'tunnel' });
      const tls = await openTunnel('keep.test:443', `${KEY}:original_status=true`, 'keep.test');
      const answers: string[] = [];
      let buffered = '';
      tls.on('data', (chunk: Buffer) => (buffered += chunk.toString('latin1')));
      for (const path of ['/1', '/2', '/3']) {
        tls.write(`GET ${path} HTTP/1.1\r\nHost: keep.test\r\n\r\n`);
        // Each answer is complete once as many body bytes as its Content-Length have arrived.
        await waitFor(
          () => {
            const end = buffered.indexOf('\r\n\r\n');
            const length = /\r\ncontent-length: (\d+)\r\n/i.exec(buffered.slice(0, end))?.[1];
            return end > 0 && length !== undefined && buffered.length >= end + 4 + Number(length);
          },
          { what: `the answer to ${path}` },
        );
        answers.push(buffered);
        buffered = '';
      }
      tls.end();
      expect(answers.map((answer) => /"url":"([^"]+)"/.exec(answer)?.[1])).toEqual([
        'https://keep.test/1',
        'https://keep.test/2',
        'https://keep.test/3',
      ]);
      expect(answers.every((answer) => answer.startsWith('HTTP/1.1 200 '))).toBe(true);
      expect(await counted('trawl_proxy_mode_connects_total', { outcome: 'tunnel' })).toBe(tunnelsBefore + 1);
    });

    it('serves the certificate of the CONNECT host, with a port other than 443 in the URL', async () => {
      const tls = await openTunnel('Shop.Test:8443', `${KEY}:`, 'shop.test');
      const served = new X509Certificate(tls.getPeerCertificate().raw);
      expect(served.subjectAltName).toBe('DNS:shop.test');
      expect(served.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
      tls.write('GET /x HTTP/1.1\r\nHost: shop.test:8443\r\nConnection: close\r\n\r\n');
      const chunks: Buffer[] = [];
      tls.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(tls, 'close');
      expect(Buffer.concat(chunks).toString('utf8')).toContain('"url":"https://shop.test:8443/x"');
    });

    it('reads plain HTTP in a tunnel as http:// (undici tunnels http targets)', async () => {
      const agent = proxyAgent('');
      const res = await undiciRequest('http://shop.test:8080/plain', { dispatcher: agent });
      await res.body.dump();
      await agent.close();
      expect(fetcher.calls.map((call) => call.query.url)).toEqual(['http://shop.test:8080/plain']);
      expect(await counted('trawl_proxy_mode_requests_total', { kind: 'tunnel_http', outcome: 'answered' })).toBe(1);
    });

    it('closes a tunnel in which the client sends nothing', async () => {
      const quiet = new ProxyModeServer(
        new ProxiedRequestHandler(authenticator, fetcher, undefined, metrics, logger, { bodyLimitBytes: 1024, creditPriceUsd: 0 }),
        authenticator,
        undefined,
        new LeafCertificates(ca),
        metrics,
        logger,
        { host: '127.0.0.1', port: 0, drainTimeoutMs: 10_000, requestTimeoutMs: 200 },
      );
      const { port: quietPort } = await quiet.start();
      const socket = netConnect(quietPort, '127.0.0.1');
      socket.write(`CONNECT shop.test:443 HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from(`${KEY}:`).toString('base64')}\r\n\r\n`);
      const [established] = (await once(socket, 'data')) as [Buffer];
      expect(established.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
      await once(socket, 'close');
      await quiet.stop();
    });

    it.each([
      ['missing', ''],
      ['malformed', `Proxy-Authorization: Basic ${Buffer.from('nokey').toString('base64')}\r\n`],
    ])('answers 407 AUTH007 at CONNECT when credentials are %s, and opens no tunnel', async (_what, header) => {
      const answer = await raw(`CONNECT shop.test:443 HTTP/1.1\r\nHost: shop.test:443\r\n${header}\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 407 Proxy Authentication Required\r\n/);
      expect(answer).toMatch(/\r\nproxy-authenticate: Basic realm="trawl"\r\n/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'AUTH007', status: 407 });
    });

    it('answers 407 AUTH003 at CONNECT for an unknown key, and REQS004 for a target without a port', async () => {
      const unknown = await raw(
        `CONNECT shop.test:443 HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from(`${UNKNOWN_KEY}:`).toString('base64')}\r\n\r\n`,
      );
      expect(unknown).toMatch(/^HTTP\/1\.1 407 /);
      expect(unknown).toContain('"code":"AUTH003"');
      const noPort = await raw(
        `CONNECT shop.test HTTP/1.1\r\nProxy-Authorization: Basic ${Buffer.from(`${KEY}:`).toString('base64')}\r\n\r\n`,
      );
      expect(noPort).toMatch(/^HTTP\/1\.1 400 /);
      expect(noPort).toContain('"code":"REQS004"');
      expect(fetcher.calls).toHaveLength(0);
    });
  });

  /** CONNECT by hand, then TLS trusting only the test CA. */
  async function openTunnel(authority: string, userPass: string, servername: string): Promise<TLSSocket> {
    const socket = netConnect(port, '127.0.0.1');
    socket.write(
      `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: Basic ${Buffer.from(userPass).toString('base64')}\r\n\r\n`,
    );
    const [established] = (await once(socket, 'data')) as [Buffer];
    expect(established.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
    const tls = tlsConnect({ socket, servername, ca: ca.certPem });
    await once(tls, 'secureConnect');
    return tls;
  }

  async function plainRequest(
    target: string,
    proxyAuthorization: string | undefined,
    method = 'GET',
    body?: string,
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
    const req = httpRequest(`${proxyUrl}${target.startsWith('/') ? target : ''}`, {
      method,
      path: target,
      headers: { ...(proxyAuthorization !== undefined && { 'proxy-authorization': proxyAuthorization }), host: 'shop.test' },
      agent: false,
    });
    req.end(body);
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') };
  }
});

describe(`${ProxyModeServer.name} stop`, () => {
  it('lets a proxied request in flight finish, then refuses new connections; safe twice', async () => {
    const ca = createCertificateAuthority();
    const logger = createLogger('proxy-mode-test', 'silent');
    const metrics = new ProxyModeMetrics(new Registry());
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived = false;
    const fetcher: ProxyFetcher = {
      async fetch(call) {
        arrived = true;
        await released;
        return { status: 200, contentType: 'text/plain', headers: {}, body: Buffer.from(`done ${String(call.query.url)}`) };
      },
      refuseMethod: (...args) => new RecordingFetcher().refuseMethod(...args),
    };
    const handler = new ProxiedRequestHandler(authenticator, fetcher, undefined, metrics, logger, {
      bodyLimitBytes: 1024,
      creditPriceUsd: 0,
    });
    const server = new ProxyModeServer(handler, authenticator, undefined, new LeafCertificates(ca), metrics, logger, {
      host: '127.0.0.1',
      port: 0,
      drainTimeoutMs: 10_000,
    });
    const { port } = await server.start();
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: 'http://slow.test/',
      headers: { 'proxy-authorization': `Basic ${Buffer.from(`${KEY}:`).toString('base64')}` },
    });
    req.end();
    const response = once(req, 'response') as Promise<[import('node:http').IncomingMessage]>;
    await waitFor(() => arrived, { what: 'the request to reach the pipeline' });

    const stopped = server.stop();
    let stopDone = false;
    void stopped.then(() => (stopDone = true));
    // New connections are refused while the request in flight still runs.
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const probe = netConnect(port, '127.0.0.1');
          probe.once('error', () => resolve(true));
          probe.once('connect', () => (probe.destroy(), resolve(false)));
        }),
      { what: 'the listener to close' },
    );
    expect(stopDone).toBe(false);
    release();
    const [res] = await response;
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    expect({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }).toEqual({
      status: 200,
      body: 'done http://slow.test/',
    });
    await stopped;
    await server.stop();
  });
});
