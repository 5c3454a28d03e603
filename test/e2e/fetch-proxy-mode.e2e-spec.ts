import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { ProxyAgent, request } from 'undici';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ECHO_HTML, EchoedRequest } from '../fixtures/web/sites/echo';
import { UNTRUSTED_CERT } from '../fixtures/web/untrusted-tls';
import { freePort, Platform } from '../support/platform';
import { makeTestCa } from '../support/test-ca';

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

/**
 * Proxy mode end to end: the gateway and a fetch worker as processes, the fixture web on loopback,
 * clients speaking only HTTP proxy to `PROXY_MODE_PORT` with `<apikey>:<params>` credentials.
 */
describe('Fetch API proxy mode (e2e)', () => {
  const ca = makeTestCa();
  const dir = mkdtempSync(join(tmpdir(), 'proxy-mode-e2e-'));
  let web: FixtureWeb;
  let platform: Platform;
  let proxyPort: number;
  let apiKey: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxyPort = await freePort();
    writeFileSync(join(dir, 'ca.crt'), ca.certPem);
    // The worker trusts the fixture's HTTPS listener the way a real target's CA is trusted.
    writeFileSync(join(dir, 'fixture-tls.crt'), UNTRUSTED_CERT);
    platform = new Platform('fetch-proxy-mode', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'fetch-worker'],
      env: {
        // The certificate as a file path, the key as PEM text: both forms are accepted.
        gateway: { PROXY_MODE_PORT: String(proxyPort), PROXY_MODE_CA_CERT: join(dir, 'ca.crt'), PROXY_MODE_CA_KEY: ca.keyPem },
        'fetch-worker': { TLS_EXTRA_CA_FILE: join(dir, 'fixture-tls.crt') },
      },
    });
    await platform.start();
    apiKey = (await platform.createTenant()).api_key;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** A proxy client as the SDKs configure one: `http://<apikey>:<params>@host:port`. */
  function proxyAgent(params: string, { tunnel = true, key = apiKey } = {}): ProxyAgent {
    // undici leaves out Proxy-Authorization when the password is empty; the token says the same.
    return new ProxyAgent({
      uri: `http://127.0.0.1:${proxyPort}`,
      token: basic(`${key}:${params}`),
      requestTls: { ca: ca.certPem },
      proxyTunnel: tunnel,
    });
  }

  async function viaProxy(
    url: string,
    params: string,
    init: { tunnel?: boolean; method?: 'GET' | 'POST' | 'PUT'; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
    const agent = proxyAgent(params, { tunnel: init.tunnel });
    try {
      const res = await request(url, { dispatcher: agent, method: init.method ?? 'GET', headers: init.headers, body: init.body });
      return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
    } finally {
      await agent.close();
    }
  }

  /** A plain absolute-form request with a raw Proxy-Authorization (or none). */
  async function plainWith(
    proxyAuthorization: string | undefined,
  ): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
    const socket = netConnect(proxyPort, '127.0.0.1');
    const auth = proxyAuthorization === undefined ? '' : `Proxy-Authorization: ${proxyAuthorization}\r\n`;
    socket.write(`GET ${web.url('echo.test', '/echo')} HTTP/1.1\r\nHost: echo.test\r\n${auth}Connection: close\r\n\r\n`);
    return parseRaw(await readAll(socket));
  }

  async function connectWith(
    proxyAuthorization: string | undefined,
  ): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
    const socket = netConnect(proxyPort, '127.0.0.1');
    const auth = proxyAuthorization === undefined ? '' : `Proxy-Authorization: ${proxyAuthorization}\r\n`;
    socket.write(`CONNECT badtls.test:${web.tlsPort} HTTP/1.1\r\nHost: badtls.test:${web.tlsPort}\r\n${auth}\r\n`);
    return parseRaw(await readAll(socket));
  }

  describe('plain HTTP', () => {
    it('fetches a fixture page through the pipeline, with Zr- and usage headers and 1 credit', async () => {
      const before = web.hits('echo.test', '/echo?via=proxy');
      const answer = await viaProxy(web.url('echo.test', '/echo?via=proxy'), '', {
        tunnel: false,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shop-header': 'kept' },
        body: '{"order":7}',
      });
      expect(answer.status).toBe(200);
      const echoed = JSON.parse(answer.text) as EchoedRequest;
      expect(echoed).toMatchObject({ method: 'POST', target: '/echo?via=proxy', body: '{"order":7}', secure: false });
      // The client's own headers reach the target (custom_headers by default); the proxy's do not.
      expect(echoed.headers['x-shop-header']).toBe('kept');
      expect(echoed.headers['proxy-authorization']).toBeUndefined();
      expect(web.hits('echo.test', '/echo?via=proxy')).toBe(before + 1);
      expect(answer.headers['zr-final-url']).toBe(web.url('echo.test', '/echo?via=proxy'));
      expect(answer.headers).toMatchObject({
        'x-request-credits': '1',
        'x-request-cost': expect.stringMatching(/^\d/),
        'concurrency-limit': expect.stringMatching(/^\d+$/),
        'concurrency-remaining': expect.stringMatching(/^\d+$/),
        'x-request-id': expect.any(String),
      });
    });

    it('applies the options of the password (original_status, custom_headers)', async () => {
      const refused = await viaProxy(web.url('echo.test', '/status/404'), '', { tunnel: false });
      expect({ status: refused.status, code: JSON.parse(refused.text).code }).toEqual({ status: 404, code: 'RESP002' });
      const passed = await viaProxy(web.url('echo.test', '/status/404'), 'original_status=true', { tunnel: false });
      expect(passed.status).toBe(404);
      expect(passed.text).toContain('This page answers 404.');

      const withheld = await viaProxy(web.url('echo.test', '/echo'), 'custom_headers=false', {
        tunnel: false,
        headers: { 'x-shop-header': 'kept' },
      });
      expect((JSON.parse(withheld.text) as EchoedRequest).headers['x-shop-header']).toBeUndefined();
    });

    it('answers 400 REQS004 naming a bad option of the password', async () => {
      const answer = await viaProxy(web.url('echo.test', '/echo'), 'wait=100', { tunnel: false });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'REQS004', parameter: 'wait' });
    });

    it.each([
      ['missing', undefined],
      ['not Basic', 'Bearer abc'],
      ['not base64', 'Basic !!!'],
      ['without a colon', basic('0123456789abcdef0123456789abcdef01234567')],
      ['with a malformed key', basic('nope:js_render=true')],
    ])('answers 407 AUTH007 when credentials are %s', async (_what, header) => {
      const answer = await plainWith(header);
      expect(answer.status).toBe(407);
      expect(answer.headers.get('proxy-authenticate')).toBe('Basic realm="trawl"');
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(answer.body).toMatchObject({
        code: 'AUTH007',
        status: 407,
        type: expect.stringContaining('AUTH007'),
        instance: expect.any(String),
      });
    });

    it('answers 407 AUTH003 for a well-formed key that does not exist', async () => {
      const answer = await plainWith(basic(`${'0'.repeat(40)}:`));
      expect({ status: answer.status, code: answer.body.code }).toEqual({ status: 407, code: 'AUTH003' });
      expect(answer.headers.get('proxy-authenticate')).toBe('Basic realm="trawl"');
    });
  });

  describe('HTTPS through CONNECT', () => {
    it('terminates TLS with a certificate for the host signed by the operator CA, and fetches https://host:port/path', async () => {
      const socket = netConnect(proxyPort, '127.0.0.1');
      socket.write(
        `CONNECT badtls.test:${web.tlsPort} HTTP/1.1\r\nHost: badtls.test:${web.tlsPort}\r\nProxy-Authorization: ${basic(`${apiKey}:`)}\r\n\r\n`,
      );
      const [established] = (await once(socket, 'data')) as [Buffer];
      expect(established.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
      const tls = tlsConnect({ socket, servername: 'badtls.test', ca: ca.certPem });
      await once(tls, 'secureConnect');
      const served = new X509Certificate(tls.getPeerCertificate().raw);
      expect(served.subjectAltName).toBe('DNS:badtls.test');
      expect(served.checkIssued(new X509Certificate(ca.certPem))).toBe(true);

      // Two requests on one tunnel: keep-alive inside it.
      const first = await exchange(tls, `GET /echo?n=1 HTTP/1.1\r\nHost: badtls.test\r\nX-Shop-Header: one\r\n\r\n`);
      const second = await exchange(tls, `GET /echo?n=2 HTTP/1.1\r\nHost: badtls.test\r\nConnection: close\r\n\r\n`);
      for (const [answer, n] of [
        [first, 1],
        [second, 2],
      ] as const) {
        expect(answer.status).toBe(200);
        expect(answer.headers.get('zr-final-url')).toBe(web.httpsUrl('badtls.test', `/echo?n=${n}`));
        expect(answer.headers.get('x-request-credits')).toBe('1');
        expect(JSON.parse(answer.text)).toMatchObject({ target: `/echo?n=${n}`, secure: true });
      }
      expect((JSON.parse(first.text) as EchoedRequest).headers['x-shop-header']).toBe('one');
    });

    it('works for an SDK-style client (undici ProxyAgent trusting the CA), with the options of the password', async () => {
      const passed = await viaProxy(web.httpsUrl('badtls.test', '/status/404'), 'original_status=true');
      expect(passed.status).toBe(404);
      expect(passed.text).toContain('This page answers 404.');
      const refused = await viaProxy(web.httpsUrl('badtls.test', '/status/404'), '');
      expect({ status: refused.status, code: JSON.parse(refused.text).code }).toEqual({ status: 404, code: 'RESP002' });
      const plain = await viaProxy(web.httpsUrl('badtls.test', '/html'), 'response_type=plaintext');
      expect(plain.status).toBe(200);
      expect(plain.text).toContain(ECHO_HTML.paragraph);
      expect(plain.text).not.toContain('<p>');
    });

    it('answers 407 AUTH007 at CONNECT for malformed credentials and 407 AUTH003 for an unknown key', async () => {
      for (const header of [undefined, 'Basic !!!', basic('short:')]) {
        const answer = await connectWith(header);
        expect({ status: answer.status, code: answer.body.code, auth: answer.headers.get('proxy-authenticate') }).toEqual({
          status: 407,
          code: 'AUTH007',
          auth: 'Basic realm="trawl"',
        });
      }
      const unknown = await connectWith(basic(`${'f'.repeat(40)}:js_render=true`));
      expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 407, code: 'AUTH003' });
    });
  });

  it('counts proxied requests and CONNECTs by outcome in /metrics', async () => {
    const metrics = (await (await fetch(platform.metricsUrl('gateway'))).text()).split('\n');
    /** The value of the sample of `name` that has all `labels` (others, like `service`, may be there too). */
    const sample = (name: string, labels: Record<string, string>) => {
      const line = metrics.find(
        (l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([key, value]) => l.includes(`${key}="${value}"`)),
      );
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    expect(sample('trawl_proxy_mode_requests_total', { kind: 'http', outcome: 'answered' })).toBeGreaterThanOrEqual(4);
    expect(sample('trawl_proxy_mode_requests_total', { kind: 'https', outcome: 'answered' })).toBeGreaterThanOrEqual(2);
    expect(sample('trawl_proxy_mode_requests_total', { kind: 'http', outcome: 'AUTH007' })).toBeGreaterThanOrEqual(5);
    expect(sample('trawl_proxy_mode_requests_total', { kind: 'http', outcome: 'AUTH003' })).toBeGreaterThanOrEqual(1);
    expect(sample('trawl_proxy_mode_connects_total', { outcome: 'AUTH007' })).toBeGreaterThanOrEqual(3);
    expect(sample('trawl_proxy_mode_connects_total', { outcome: 'tunnel' })).toBeGreaterThanOrEqual(2);
    expect(sample('trawl_proxy_mode_certificates_issued_total', {})).toBeGreaterThanOrEqual(1);
  });
});

async function readAll(socket: import('node:stream').Duplex): Promise<Buffer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  return Buffer.concat(chunks);
}

function parseRaw(raw: Buffer): { status: number; headers: Headers; body: Record<string, unknown> } {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = new Headers(
    lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(text.slice(split + 4)) as Record<string, unknown> };
}

/** One request on an open TLS tunnel; reads exactly one answer (content-length or chunked). */
async function exchange(tls: TLSSocket, requestText: string): Promise<{ status: number; headers: Headers; text: string }> {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer) => (buffered = Buffer.concat([buffered, chunk]));
  tls.on('data', onData);
  tls.write(requestText);
  try {
    for (;;) {
      const parsed = completeAnswer(buffered);
      if (parsed) return parsed;
      await Promise.race([once(tls, 'data'), once(tls, 'close')]);
      if (tls.destroyed && !completeAnswer(buffered)) throw new Error(`tunnel closed mid-answer: ${buffered.toString('utf8')}`);
    }
  } finally {
    tls.off('data', onData);
  }
}

function completeAnswer(raw: Buffer): { status: number; headers: Headers; text: string } | undefined {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const headers = new Headers(
    lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]),
  );
  const rest = raw.subarray(split + 4);
  let body: Buffer | undefined;
  if (headers.has('content-length')) {
    const length = Number(headers.get('content-length'));
    if (rest.length >= length) body = rest.subarray(0, length);
  } else if (headers.get('transfer-encoding') === 'chunked') {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) break;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) {
        if (rest.length >= lineEnd + 4) body = Buffer.concat(chunks);
        break;
      }
      if (rest.length < lineEnd + 2 + size + 2) break;
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  return body === undefined ? undefined : { status: Number(statusLine.split(' ')[1]), headers, text: body.toString('utf8') };
}
