import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { EgressErrorCode, EgressPolicy, parseHostMap } from '@trawl/egress';
import { waitFor } from '@trawl/testing';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { EgressProxy } from '../src/egress-proxy/egress-proxy';
import { EGRESS_REFUSAL_HEADER, type ProxySession } from '../src/egress-proxy/proxy-session';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A plain-HTTP request in absolute form, as Chromium sends it to a proxy. */
function viaProxy(session: ProxySession, url: string, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: session.port, method, path: url, headers: { host: new URL(url).host }, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A target that counts its connections; `drop` decides which requests it answers by closing the connection instead. */
async function startCountingTarget(drop: (requestOnConnection: number, method: string) => boolean = () => false) {
  const sockets: Socket[] = [];
  const server = createServer((req, res) => {
    const socket = req.socket;
    const seen = ((socket as Socket & { served?: number }).served ?? 0) + 1;
    (socket as Socket & { served?: number }).served = seen;
    if (drop(seen, req.method ?? '')) {
      socket.destroy(); // as a server whose keep-alive timer fired as the request came
      return;
    }
    req.resume();
    req.on('end', () => res.end(`answer ${seen} on connection ${sockets.indexOf(socket) + 1}`));
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => sockets.length,
    open: () => sockets.filter((socket) => !socket.destroyed).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** CONNECT through the proxy; answers the status line and, on 200, the socket of the tunnel. */
function connectThrough(port: number, authority: string): Promise<{ statusLine: string; socket: Socket; rest: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let head = '';
    socket.setEncoding('latin1');
    const onData = (chunk: string) => {
      head += chunk;
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      resolve({ statusLine: head.slice(0, head.indexOf('\r\n')), socket, rest: head.slice(end + 4) });
    };
    socket.on('data', onData);
    socket.on('error', reject);
  });
}

/** Sends one GET over a raw socket (a tunnel) and reads until the server closes. */
function getOverSocket(socket: Socket, host: string, path: string): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  });
}

/** A minimal upstream proxy: CONNECT only, records what it was asked and with which credentials. */
async function startUpstreamProxy(): Promise<{ server: Server; port: number; seen: { authority: string; auth?: string }[] }> {
  const seen: { authority: string; auth?: string }[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head: Buffer) => {
    seen.push({ authority: req.url ?? '', auth: req.headers['proxy-authorization'] });
    if (req.headers['proxy-authorization'] !== `Basic ${Buffer.from('alice:s3cret').toString('base64')}`) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const target = connect({ host, port: Number(port) }, () => {
      client.write('HTTP/1.1 200 Connection established\r\n\r\n');
      target.write(head);
      target.pipe(client);
      client.pipe(target);
    });
    target.on('error', () => client.destroy());
    client.on('error', () => target.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

describe(EgressProxy.name, () => {
  let web: FixtureWeb;
  let proxy: EgressProxy;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }), connectTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await proxy.close();
    await web.close();
  });
  beforeEach(() => web.resetHits());
  // Closed even when a test fails half-way: an open server would keep jest from ending.
  const targets: Array<{ close(): Promise<void> }> = [];
  const countingTarget = async (...args: Parameters<typeof startCountingTarget>) => {
    const target = await startCountingTarget(...args);
    targets.push(target);
    return target;
  };
  afterEach(async () => {
    await Promise.all(targets.splice(0).map((target) => target.close()));
  });

  describe('plain HTTP', () => {
    it('forwards a request for an allowed host to the checked address, Host header intact', async () => {
      const session = await proxy.openSession();
      const answer = await viaProxy(session, web.url('other.test', '/x'));
      expect(answer.status).toBe(200);
      expect(answer.body).toContain('Other site x');
      expect(web.hits('other.test', '/x')).toBe(1);
      const stats = session.stats();
      expect(stats).toMatchObject({ requests: 1, refusals: 0 });
      expect(stats.bytesReceived).toBeGreaterThan(answer.body.length);
      await session.close();
    });

    it('refuses loopback names outside the host map with a 403 the session recognises, without connecting', async () => {
      const session = await proxy.openSession();
      const answer = await viaProxy(session, `http://localhost:${web.port}/secret`);
      expect(answer.status).toBe(403);
      expect(session.refusalIn(answer.headers as Record<string, string>)).toBe(EgressErrorCode.BlockedAddress);
      expect(web.hits('localhost')).toBe(0);
      expect(session.stats()).toMatchObject({ refusals: 1, failures: [{ host: 'localhost', port: web.port, code: 'blocked_address' }] });
      expect(session.failureFor('localhost', web.port)?.code).toBe('blocked_address');
      await session.close();
    });

    it('does not take a forged refusal header from a target for its own', async () => {
      const session = await proxy.openSession();
      expect(session.refusalIn({ [EGRESS_REFUSAL_HEADER]: 'forged blocked_address' })).toBeUndefined();
      await session.close();
    });

    it("keeps its connection to a target for the session's next requests, and ends it with the session", async () => {
      const target = await countingTarget();
      const session = await proxy.openSession();
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await viaProxy(session, `http://other.test:${target.port}/p${i}`));
      expect(answers.map((a) => [a.status, a.body])).toEqual([
        [200, 'answer 1 on connection 1'],
        [200, 'answer 2 on connection 1'],
        [200, 'answer 3 on connection 1'],
      ]);
      expect(target.connections()).toBe(1);
      await session.close();
      await waitFor(() => target.open() === 0, { what: "the session's pooled connection closed" });
    });

    it('sends a GET again on a new connection when the target closed the kept one as it arrived; never a POST', async () => {
      const target = await countingTarget((onConnection) => onConnection === 2);
      const session = await proxy.openSession();
      expect((await viaProxy(session, `http://other.test:${target.port}/a`)).body).toBe('answer 1 on connection 1');
      const again = await viaProxy(session, `http://other.test:${target.port}/b`);
      expect([again.status, again.body]).toEqual([200, 'answer 1 on connection 2']);
      expect(target.connections()).toBe(2);
      // A POST may have reached the target: sending it twice is not the proxy's call.
      const post = await viaProxy(session, `http://other.test:${target.port}/c`, 'POST');
      expect(post.status).toBe(502);
      expect(target.connections()).toBe(2);
      await session.close();
    });

    it('answers 502 and records dns_failure for a name that does not resolve', async () => {
      const session = await proxy.openSession();
      const answer = await viaProxy(session, 'http://no-such-host.invalid/');
      expect(answer.status).toBe(502);
      expect(session.stats()).toMatchObject({ refusals: 0, failures: [{ code: 'dns_failure' }] });
      await session.close();
    });
  });

  describe('download limit (256 KiB per request)', () => {
    const LIMIT = 256 * 1024;
    let limited: EgressProxy;
    beforeAll(() => {
      limited = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }), maxBytesPerRequest: LIMIT });
    });
    afterAll(() => limited.close());

    /** Reads a plain-HTTP answer through the session until its connection ends, whole or cut. */
    function download(session: ProxySession, url: string): Promise<{ bytes: number; complete: boolean }> {
      return new Promise((resolve) => {
        const req = request(
          { host: '127.0.0.1', port: session.port, path: url, headers: { host: new URL(url).host }, agent: false },
          (res) => {
            let bytes = 0;
            res.on('data', (chunk: Buffer) => (bytes += chunk.length));
            res.on('error', () => undefined);
            res.on('close', () => resolve({ bytes, complete: res.complete }));
          },
        );
        req.on('error', () => resolve({ bytes: 0, complete: false }));
        req.end();
      });
    }

    it('cuts a plain-HTTP answer past the limit, and serves the next request after a reset', async () => {
      const session = await limited.openSession();
      const big = await download(session, web.url('echo.test', '/big?kib=2048'));
      expect(big.complete).toBe(false);
      expect(big.bytes).toBeLessThan(2048 * 1024);
      expect(session.overLimit).toBe(true);
      session.resetStats();
      expect(session.overLimit).toBe(false);
      expect(await download(session, web.url('echo.test', '/big?kib=64'))).toMatchObject({ complete: true });
      expect(session.overLimit).toBe(false);
      await session.close();
    });

    it('cuts a tunnel past the limit', async () => {
      const session = await limited.openSession();
      const { socket } = await connectThrough(session.port, `echo.test:${web.port}`);
      const text = await getOverSocket(socket, `echo.test:${web.port}`, '/big?kib=2048');
      expect(text.length).toBeLessThan(2048 * 1024);
      expect(session.overLimit).toBe(true);
      await session.close();
    });
  });

  describe('CONNECT', () => {
    it('opens a tunnel to an allowed host', async () => {
      const session = await proxy.openSession();
      const { statusLine, socket } = await connectThrough(session.port, `other.test:${web.port}`);
      expect(statusLine).toMatch(/^HTTP\/1\.1 200/);
      const text = await getOverSocket(socket, `other.test:${web.port}`, '/x');
      expect(text).toMatch(/^HTTP\/1\.1 200/);
      expect(web.hits('other.test', '/x')).toBe(1);
      await session.close();
    });

    it('refuses private literals and loopback names with 403', async () => {
      const session = await proxy.openSession();
      for (const authority of ['10.0.0.1:80', `127.0.0.1:${web.port}`, `localhost:${web.port}`, '[::1]:443', '169.254.169.254:80']) {
        const { statusLine, socket } = await connectThrough(session.port, authority);
        expect(statusLine).toMatch(/^HTTP\/1\.1 403/);
        socket.destroy();
      }
      expect(session.stats().refusals).toBe(5);
      expect(web.hits('127.0.0.1') + web.hits('localhost')).toBe(0);
      await session.close();
    });

    it('refuses everything in a deny-all session', async () => {
      const session = await proxy.openSession({ denyAll: true });
      const { statusLine, socket } = await connectThrough(session.port, `other.test:${web.port}`);
      expect(statusLine).toMatch(/^HTTP\/1\.1 403/);
      socket.destroy();
      expect(web.hits('other.test')).toBe(0);
      await session.close();
    });
  });

  describe('upstream proxies', () => {
    it('routes tunnels and plain requests through the chosen upstream, with its credentials and the checked address', async () => {
      const upstream = await startUpstreamProxy();
      const chosen: string[] = [];
      const session = await proxy.openSession({
        upstream: (target) => {
          chosen.push(`${target.host}:${target.port}`);
          return `http://alice:s3cret@127.0.0.1:${upstream.port}`;
        },
      });
      const { socket } = await connectThrough(session.port, `other.test:${web.port}`);
      expect(await getOverSocket(socket, `other.test:${web.port}`, '/x')).toMatch(/^HTTP\/1\.1 200/);
      expect((await viaProxy(session, web.url('other.test', '/'))).status).toBe(200);
      expect(chosen).toEqual([`other.test:${web.port}`, `other.test:${web.port}`]);
      // The upstream is asked for the address the policy checked, never the name (no second resolution).
      expect(upstream.seen.map((s) => s.authority)).toEqual([`127.0.0.1:${web.port}`, `127.0.0.1:${web.port}`]);
      expect(session.stats().upstreamRequests).toBe(2);
      expect(web.hits('other.test')).toBe(2);
      await session.close();
      upstream.server.close();
    });

    it('answers 502 when the upstream refuses the tunnel, and never asks it for a refused target', async () => {
      const upstream = await startUpstreamProxy();
      const session = await proxy.openSession({ upstream: () => `http://alice:wrong@127.0.0.1:${upstream.port}` });
      const { statusLine, socket } = await connectThrough(session.port, `other.test:${web.port}`);
      expect(statusLine).toMatch(/^HTTP\/1\.1 502/);
      socket.destroy();
      const refused = await connectThrough(session.port, `localhost:${web.port}`);
      expect(refused.statusLine).toMatch(/^HTTP\/1\.1 403/);
      refused.socket.destroy();
      expect(upstream.seen).toHaveLength(1);
      expect(session.stats().failures.map((f) => f.code)).toEqual(['connect_failed', 'blocked_address']);
      await session.close();
      upstream.server.close();
    });
  });

  describe('close', () => {
    it('stops listening and forgets the session; safe twice', async () => {
      const session = await proxy.openSession();
      const before = proxy.openSessions;
      await session.close();
      await session.close();
      expect(proxy.openSessions).toBe(before - 1);
      await expect(viaProxy(session, web.url('other.test', '/x'))).rejects.toThrow(/ECONNREFUSED/);
    });
  });
});
