import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { waitFor } from '@trawl/testing';
import { Agent } from 'undici';
import { createEgressAgent } from './egress-agent';
import { EgressPolicy, type ResolvedAddress } from './egress-policy';
import { EgressError, EgressErrorCode } from './errors';
import { parseHostMap } from './host-map';
import { safeRequest } from './safe-request';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  port: number;
  /** TCP connections accepted: zero proves the policy refused before connecting. */
  connections: number;
  requests: SeenRequest[];
  /** Responses whose socket closed before the handler ended them. */
  abandoned: number;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, seen: SeenRequest) => void;

/** A real HTTP server on 127.0.0.1 (ephemeral port) that records what reaches it. */
async function startServer(handler: Handler): Promise<TestServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen = { method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString() };
      state.requests.push(seen);
      response.on('close', () => {
        if (!response.writableFinished) state.abandoned++;
      });
      handler(request, response, seen);
    });
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state: TestServer = {
    port: (server.address() as AddressInfo).port,
    connections: 0,
    requests: [],
    abandoned: 0,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return state;
}

/** A port nothing listens on: bound, then released. */
async function refusedPort(): Promise<number> {
  const server = await startServer(() => undefined);
  await server.close();
  return server.port;
}

async function egressErrorOf(promise: Promise<unknown>): Promise<EgressError> {
  const error = await promise.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(EgressError);
  return error as EgressError;
}

function sendRedirect(response: ServerResponse, location: string, status = 302): void {
  response.writeHead(status, { location });
  response.end();
}

function redirectTo(location: string, status = 302): Handler {
  return (_request, response) => sendRedirect(response, location, status);
}

describe(safeRequest.name, () => {
  const policy = new EgressPolicy({ hostMap: parseHostMap('shop.test=127.0.0.1,hooks.test=127.0.0.1') });
  let agent: Agent;
  const servers: TestServer[] = [];

  async function serve(handler: Handler): Promise<TestServer> {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  }

  beforeAll(() => {
    agent = createEgressAgent(policy, { connectTimeoutMs: 2_000 });
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  afterAll(async () => {
    await agent.close();
  });

  describe('host policy', () => {
    it('fetches a host map name from its mapped loopback address', async () => {
      const shop = await serve((_request, response) => response.end('hello from the shop'));
      const response = await safeRequest(policy, agent, `http://shop.test:${shop.port}/page?q=1`);
      expect(response.status).toBe(200);
      expect(response.body.toString()).toBe('hello from the shop');
      expect(response.url).toBe(`http://shop.test:${shop.port}/page?q=1`);
      expect(response.redirectChain).toEqual([]);
      expect(shop.requests[0]).toMatchObject({ url: '/page?q=1', headers: { host: `shop.test:${shop.port}` } });
    });

    it.each([
      ['a literal loopback address', (port: number) => `http://127.0.0.1:${port}/`],
      ['a decimal spelling of loopback', (port: number) => `http://2130706433:${port}/`],
      ['an IPv4-mapped IPv6 loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
      ['the IPv6 loopback', (port: number) => `http://[::1]:${port}/`],
      ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/`],
    ])('refuses %s before connecting', async (_case, urlFor) => {
      const victim = await serve((_request, response) => response.end('secret'));
      expect((await egressErrorOf(safeRequest(policy, agent, urlFor(victim.port)))).code).toBe(EgressErrorCode.BlockedAddress);
      expect(victim.connections).toBe(0);
    });

    it('refuses a name when any of its addresses is private, before connecting', async () => {
      const victim = await serve((_request, response) => response.end('secret'));
      const lookup = async (): Promise<ResolvedAddress[]> => [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ];
      const mixedPolicy = new EgressPolicy({ lookup });
      const mixedAgent = createEgressAgent(mixedPolicy);
      try {
        const error = await egressErrorOf(safeRequest(mixedPolicy, mixedAgent, `http://mixed.example:${victim.port}/`));
        expect(error.code).toBe(EgressErrorCode.BlockedAddress);
        expect(victim.connections).toBe(0);
      } finally {
        await mixedAgent.close();
      }
    });

    it('checks the address at connect time, not only when the URL was validated (DNS rebinding)', async () => {
      const victim = await serve((_request, response) => response.end('secret'));
      const answers: ResolvedAddress[][] = [[{ address: '93.184.215.14', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
      const rebindingPolicy = new EgressPolicy({ lookup: async () => answers.shift() ?? [] });
      const rebindingAgent = createEgressAgent(rebindingPolicy);
      const url = new URL(`http://rebind.example:${victim.port}/`);
      try {
        await expect(rebindingPolicy.assertUrlAllowed(url)).resolves.toEqual({ address: '93.184.215.14', family: 4 });
        const error = await egressErrorOf(safeRequest(rebindingPolicy, rebindingAgent, url));
        expect(error.code).toBe(EgressErrorCode.BlockedAddress);
        expect(victim.connections).toBe(0);
      } finally {
        await rebindingAgent.close();
      }
    });

    it('checks names before the request when the agent does not enforce the policy', async () => {
      const victim = await serve((_request, response) => response.end('secret'));
      const plainAgent = new Agent();
      try {
        const error = await egressErrorOf(safeRequest(policy, plainAgent, `http://localhost:${victim.port}/`));
        expect(error.code).toBe(EgressErrorCode.BlockedAddress);
        expect(victim.connections).toBe(0);
      } finally {
        await plainAgent.close();
      }
    });

    it('fails with DnsFailure for a name that does not resolve', async () => {
      const error = await egressErrorOf(safeRequest(policy, agent, 'http://nonexistent.invalid/'));
      expect(error.code).toBe(EgressErrorCode.DnsFailure);
    });

    it.each(['ftp://shop.test/', 'file:///etc/passwd', 'not a url'])('refuses %p with InvalidUrl', async (url) => {
      expect((await egressErrorOf(safeRequest(policy, agent, url))).code).toBe(EgressErrorCode.InvalidUrl);
    });
  });

  describe('redirects', () => {
    it.each([
      ['a literal loopback address', (port: number) => `http://127.0.0.1:${port}/`],
      ['a name that resolves to loopback', (port: number) => `http://localhost:${port}/`],
      ['an IPv4-mapped IPv6 loopback', (port: number) => `http://[::ffff:127.0.0.1]:${port}/`],
      ['an octal spelling of loopback', (port: number) => `http://0177.0.0.1:${port}/`],
    ])('refuses a redirect to %s, and its target receives nothing', async (_case, urlFor) => {
      const victim = await serve((_request, response) => response.end('secret'));
      const shop = await serve(redirectTo(urlFor(victim.port)));
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`));
      expect(error.code).toBe(EgressErrorCode.BlockedAddress);
      expect(shop.requests).toHaveLength(1);
      expect(victim.connections).toBe(0);
    });

    it('refuses a redirect to another scheme', async () => {
      const shop = await serve(redirectTo('file:///etc/passwd'));
      expect((await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`))).code).toBe(EgressErrorCode.InvalidUrl);
    });

    it('follows a chain between allowed hosts and reports every hop', async () => {
      const hooks = await serve((_request, response) => response.end('arrived'));
      const shop = await serve((request, response) => {
        if (request.url === '/start') sendRedirect(response, '/second', 301);
        else sendRedirect(response, `http://hooks.test:${hooks.port}/third`, 307);
      });
      const response = await safeRequest(policy, agent, `http://shop.test:${shop.port}/start`);
      expect(response.body.toString()).toBe('arrived');
      expect(response.url).toBe(`http://hooks.test:${hooks.port}/third`);
      expect(response.redirectChain).toEqual([`http://shop.test:${shop.port}/start`, `http://shop.test:${shop.port}/second`]);
      expect(hooks.requests.map((request) => request.url)).toEqual(['/third']);
    });

    it('turns a POST into a GET without body after a 303', async () => {
      const shop = await serve((request, response) => {
        if (request.url === '/form') sendRedirect(response, '/done', 303);
        else response.end('ok');
      });
      await safeRequest(policy, agent, `http://shop.test:${shop.port}/form`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1',
      });
      expect(shop.requests.map(({ method, url, body }) => [method, url, body])).toEqual([
        ['POST', '/form', 'a=1'],
        ['GET', '/done', ''],
      ]);
      expect(shop.requests[1].headers['content-type']).toBeUndefined();
    });

    it('repeats a POST with its body after a 307', async () => {
      const shop = await serve((request, response) => {
        if (request.url === '/form') sendRedirect(response, '/moved', 307);
        else response.end('ok');
      });
      await safeRequest(policy, agent, `http://shop.test:${shop.port}/form`, { method: 'POST', body: '{"a":1}' });
      expect(shop.requests.map(({ method, url, body }) => [method, url, body])).toEqual([
        ['POST', '/form', '{"a":1}'],
        ['POST', '/moved', '{"a":1}'],
      ]);
    });

    it('does not hand credentials to another origin', async () => {
      const hooks = await serve((_request, response) => response.end('ok'));
      const shop = await serve(redirectTo(`http://hooks.test:${hooks.port}/`));
      await safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { headers: { Authorization: 'Bearer t', cookie: 'c=1' } });
      expect(shop.requests[0].headers).toMatchObject({ authorization: 'Bearer t', cookie: 'c=1' });
      expect(hooks.requests[0].headers.authorization).toBeUndefined();
      expect(hooks.requests[0].headers.cookie).toBeUndefined();
    });

    it('fails with TooManyRedirects after maxRedirects hops', async () => {
      const shop = await serve((request, response) => {
        const hop = Number(request.url!.split('/')[2]);
        sendRedirect(response, `/r/${hop + 1}`);
      });
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/r/0`, { maxRedirects: 3 }));
      expect(error.code).toBe(EgressErrorCode.TooManyRedirects);
      expect(shop.requests.map((request) => request.url)).toEqual(['/r/0', '/r/1', '/r/2', '/r/3']);
    });

    it('returns a redirect status without a location as the response', async () => {
      const shop = await serve((_request, response) => {
        response.writeHead(302);
        response.end('nowhere');
      });
      const response = await safeRequest(policy, agent, `http://shop.test:${shop.port}/`);
      expect(response.status).toBe(302);
      expect(response.redirectChain).toEqual([]);
    });
  });

  describe('bodies', () => {
    /** Streams `chunkCount` chunks of 64 KiB without a content-length. */
    function streaming(chunkCount: number): Handler {
      return (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        let sent = 0;
        const pump = () => {
          while (sent < chunkCount) {
            sent++;
            if (!response.write(Buffer.alloc(64 * 1024, 1))) return void response.once('drain', pump);
          }
          response.end();
        };
        response.on('close', () => response.removeAllListeners('drain'));
        pump();
      };
    }

    it('fails with BodyTooLarge and drops the connection when a streamed body passes the cap', async () => {
      const shop = await serve(streaming(1_000)); // 64 MiB
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { maxBodyBytes: 200_000 }));
      expect(error.code).toBe(EgressErrorCode.BodyTooLarge);
      await waitFor(() => shop.abandoned === 1, { timeoutMs: 20_000, what: 'the server to see its response abandoned' });
    });

    it('fails with BodyTooLarge before reading when the declared length passes the cap', async () => {
      const shop = await serve((_request, response) => {
        response.writeHead(200, { 'content-length': 5_000_000 });
        response.write(Buffer.alloc(1024));
      });
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { maxBodyBytes: 1_000_000 }));
      expect(error.code).toBe(EgressErrorCode.BodyTooLarge);
    });

    it('fails with BodyTooLarge when a small compressed body expands past the cap', async () => {
      const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
      const shop = await serve((_request, response) => {
        response.writeHead(200, { 'content-encoding': 'gzip' });
        response.end(bomb);
      });
      expect(bomb.length).toBeLessThan(100_000);
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { maxBodyBytes: 1_000_000 }));
      expect(error.code).toBe(EgressErrorCode.BodyTooLarge);
    });

    it('accepts a body of exactly maxBodyBytes', async () => {
      const shop = await serve((_request, response) => response.end(Buffer.alloc(1000, 7)));
      const response = await safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { maxBodyBytes: 1000 });
      expect(response.body).toHaveLength(1000);
    });

    it.each([
      ['gzip', 'gzip', gzipSync],
      ['deflate', 'zlib-wrapped', deflateSync],
      ['deflate', 'raw, as some servers send it', deflateRawSync],
      ['br', 'brotli', brotliCompressSync],
    ])('decodes a %s body (%s)', async (encoding, _variant, compress) => {
      const page = '<html><body>compressed page</body></html>';
      const shop = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': encoding });
        response.end(compress(Buffer.from(page)));
      });
      const response = await safeRequest(policy, agent, `http://shop.test:${shop.port}/`);
      expect(response.body.toString()).toBe(page);
      expect(response.contentType).toBe('text/html; charset=utf-8');
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(shop.requests[0].headers['accept-encoding']).toBe('gzip, deflate, br');
    });

    it("keeps the caller's accept-encoding", async () => {
      const shop = await serve((_request, response) => response.end('plain'));
      await safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { headers: { 'Accept-Encoding': 'identity' } });
      expect(shop.requests[0].headers['accept-encoding']).toBe('identity');
    });

    it('does not read a body the caller does not want', async () => {
      const shop = await serve(streaming(1_000));
      const acceptBody = jest.fn(() => false);
      const response = await safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { maxBodyBytes: 200_000, acceptBody });
      expect(acceptBody).toHaveBeenCalledWith('application/octet-stream');
      expect(response.status).toBe(200);
      expect(response.body).toHaveLength(0);
      await waitFor(() => shop.abandoned === 1, { timeoutMs: 20_000, what: 'the server to see its response abandoned' });
    });
  });

  describe('failures', () => {
    it('fails with Timeout when the server never answers', async () => {
      const shop = await serve(() => undefined);
      const started = Date.now();
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { timeoutMs: 300 }));
      expect(error.code).toBe(EgressErrorCode.Timeout);
      expect(Date.now() - started).toBeLessThan(2_000);
    });

    it('fails with Timeout when the body stalls, the deadline covering the whole request', async () => {
      const shop = await serve((_request, response) => {
        response.writeHead(200);
        response.write('first part');
      });
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { timeoutMs: 300 }));
      expect(error.code).toBe(EgressErrorCode.Timeout);
    });

    it('fails with ConnectFailed when the port refuses connections', async () => {
      const port = await refusedPort();
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${port}/`));
      expect(error.code).toBe(EgressErrorCode.ConnectFailed);
    });

    it('fails with ConnectFailed when the server drops the connection, without asking again', async () => {
      const shop = await serve((request) => request.socket.destroy());
      const error = await egressErrorOf(safeRequest(policy, agent, `http://shop.test:${shop.port}/`));
      expect(error.code).toBe(EgressErrorCode.ConnectFailed);
      expect(shop.requests).toHaveLength(1);
    });

    /** undici marks a connection free for the next request a turn after its answer ended. */
    const idleConnection = () => new Promise<void>((resolve) => setImmediate(resolve));

    /** A server that closes a kept-alive connection as its second request arrives: the idle-timeout race. */
    async function serveClosingReusedConnections(): Promise<TestServer> {
      const served = new WeakMap<object, number>();
      return serve((request, response) => {
        const count = (served.get(request.socket) ?? 0) + 1;
        served.set(request.socket, count);
        if (count > 1) request.socket.destroy();
        else response.end(`answer ${count}`);
      });
    }

    it('sends a GET again on a new connection when a kept-alive one was closed under it', async () => {
      const shop = await serveClosingReusedConnections();
      const url = `http://shop.test:${shop.port}/`;
      expect((await safeRequest(policy, agent, url)).body.toString()).toBe('answer 1');
      await idleConnection();
      const again = await safeRequest(policy, agent, url);
      expect(again.status).toBe(200);
      expect(again.body.toString()).toBe('answer 1');
      expect(shop.requests).toHaveLength(3);
      expect(shop.connections).toBe(2);
    });

    it('does not send a POST again when its kept-alive connection was closed under it', async () => {
      const shop = await serveClosingReusedConnections();
      const url = `http://shop.test:${shop.port}/`;
      await safeRequest(policy, agent, url);
      await idleConnection();
      const error = await egressErrorOf(safeRequest(policy, agent, url, { method: 'POST', body: 'order=1' }));
      expect(error.code).toBe(EgressErrorCode.ConnectFailed);
      expect(shop.requests.map((seen) => seen.method)).toEqual(['GET', 'POST']);
    });

    it("throws the caller's abort reason when the caller aborts", async () => {
      const shop = await serve(() => undefined);
      const controller = new AbortController();
      const reason = new Error('client went away');
      const request = safeRequest(policy, agent, `http://shop.test:${shop.port}/`, { signal: controller.signal });
      await waitFor(() => shop.requests.length === 1, { what: 'the request to arrive' });
      controller.abort(reason);
      await expect(request).rejects.toBe(reason);
    });
  });
});
