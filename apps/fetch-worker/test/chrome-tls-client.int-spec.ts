import { brotliCompressSync, gzipSync } from 'node:zlib';
import { createEgressAgent, EgressErrorCode, EgressPolicy, parseHostMap } from '@trawl/egress';
import { makeLeafCert, startTlsFront, type TlsFront } from '../../../test/fixtures/tls-front';
import { runCa } from '../../../test/support/run-ca';
import { EgressProxy } from '../src/egress-proxy';
import { navigationHeaders } from '../src/identity';
import { testIdentity } from '../src/identity/identity.test-support';
import { ChromeTlsClient } from '../src/page-fetch/chrome-tls-client';
import { HttpEngine, type HttpExchangeRequest } from '../src/page-fetch/http-engine';

/** Chrome's HTTP/2 preface (SETTINGS, connection window, pseudo-header order), as Chromium 156 sends it. */
const CHROME_H2 = '1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p';

describe(ChromeTlsClient.name, () => {
  let front: TlsFront;
  let engine: HttpEngine;
  const identity = testIdentity();

  beforeAll(async () => {
    // Trusted through SSL_CERT_FILE, set for the whole run by the global setup (see runCa).
    const ca = runCa();
    front = await startTlsFront({
      ...makeLeafCert(ca, ['tls.test', 'www.tls.test', 'private.test']),
      handler: (req, res) => {
        const path = req.url ?? '/';
        if (path === '/redirect-to-private') {
          res.writeHead(302, { location: `https://private.test:${front.port}/` });
          res.end();
        } else if (path === '/cookies') {
          res.writeHead(200, { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'], 'content-type': 'text/html' });
          res.end('<p>cookies</p>');
        } else if (path === '/gzip' || path === '/br') {
          const page = Buffer.from('<p>compressed page</p>');
          res.writeHead(200, { 'content-encoding': path.slice(1), 'content-type': 'text/html' });
          res.end(path === '/gzip' ? gzipSync(page) : brotliCompressSync(page));
        } else if (path === '/big') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end(Buffer.alloc(300_000, 'x'));
        } else {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<p>hello</p>');
        }
      },
    });
    // private.test is not in the map: the policy resolves it (it does not) and refuses it.
    const policy = new EgressPolicy({ hostMap: parseHostMap('tls.test=127.0.0.1,www.tls.test=127.0.0.1') });
    const tls: ChromeTlsClient = new ChromeTlsClient({
      proxy: new EgressProxy({ policy, onFailure: (failure) => tls.recordFailure(failure) }),
    });
    engine = new HttpEngine({ policy, agent: createEgressAgent(policy), tls });
  });
  afterAll(async () => {
    await engine?.close();
    await front?.close();
  });
  /** The request the front received for `path` (connections are pooled: it may be on an earlier one). */
  const received = (path: string) =>
    front
      .fingerprints()
      .flatMap((connection) => connection.requests)
      .find((request) => request.path === path)!;

  const exchange = (url: string, overrides: Partial<HttpExchangeRequest> = {}) =>
    engine.exchange({ url, method: 'GET', identity, headers: {}, maxBodyBytes: 1024 * 1024, timeoutMs: 10_000, ...overrides });

  describe('exchange over https', () => {
    it("speaks HTTP/2 with Chrome's preface and a Chrome ClientHello (GREASE, h2 and http/1.1 offered)", async () => {
      const response = await exchange(front.url('tls.test', '/'));
      expect(response.body.toString()).toBe('<p>hello</p>');
      const [connection] = front.fingerprints();
      expect(connection).toMatchObject({ sni: 'tls.test', alpn: ['h2', 'http/1.1'], alpnNegotiated: 'h2', grease: true, tlsVersion: '13' });
      expect(connection.h2?.akamai).toBe(CHROME_H2);
      // Chrome's cipher suites (JA4's second part) and X25519MLKEM768 first among the groups.
      expect(connection.ja4).toMatch(/^t13d15\d\dh2_8daaf6152771_/);
      expect(connection.clientHello.supportedGroups.filter((group) => !/^(.)a\1a$/.test(group))).toEqual(['11ec', '001d', '0017', '0018']);
    });

    it("sends the identity's headers in Chrome's HTTP/2 order, client hints included", async () => {
      await exchange(front.url('tls.test', '/ordered'), { headers: { 'x-token': 't' } });
      const names = received('/ordered').headers.map(([name]) => name);
      // Exactly what the identity's Chrome writes, in its order (navigation-headers.spec.ts pins that
      // order), after the pseudo-headers in Chrome's order: nothing added, nothing moved on the way.
      const written = navigationHeaders(identity, new URL(front.url('tls.test', '/ordered')), { 'x-token': 't' }, 'h2').filter(
        (_, i) => i % 2 === 0,
      );
      expect(names).toEqual([':method', ':authority', ':scheme', ':path', ...written]);
      expect(written).toContain('sec-ch-ua');
      const headers = Object.fromEntries(received('/ordered').headers);
      expect(headers).toMatchObject({ 'user-agent': identity.userAgent, 'accept-encoding': 'gzip, deflate, br, zstd' });
    });

    it('reuses its connection for the next requests to the same site', async () => {
      await exchange(front.url('tls.test', '/page/0'));
      const connections = front.fingerprints().length;
      for (let i = 1; i < 5; i++) await exchange(front.url('tls.test', `/page/${i}`));
      expect(front.fingerprints()).toHaveLength(connections);
    });

    it('undoes gzip and br, and keeps every cookie the target set', async () => {
      expect((await exchange(front.url('tls.test', '/gzip'))).body.toString()).toBe('<p>compressed page</p>');
      expect((await exchange(front.url('tls.test', '/br'))).body.toString()).toBe('<p>compressed page</p>');
      expect((await exchange(front.url('tls.test', '/cookies'))).headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    });

    it('refuses a body over the cap', async () => {
      await expect(exchange(front.url('tls.test', '/big'), { maxBodyBytes: 100_000 })).rejects.toMatchObject({
        code: EgressErrorCode.BodyTooLarge,
      });
    });

    it('keeps the egress policy at connect time: a name the policy refuses, and a redirect to it', async () => {
      await expect(exchange(front.url('private.test', '/'))).rejects.toMatchObject({ code: EgressErrorCode.DnsFailure });
      await expect(exchange(`https://127.0.0.1:${front.port}/`)).rejects.toMatchObject({ code: EgressErrorCode.BlockedAddress });
      await expect(exchange(front.url('tls.test', '/redirect-to-private'))).rejects.toMatchObject({ code: EgressErrorCode.DnsFailure });
      // Only the allowed host was ever connected to.
      expect(new Set(front.fingerprints().map((connection) => connection.sni))).toEqual(new Set(['tls.test']));
    });
  });
});
