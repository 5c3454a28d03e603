import { createInbox, headers as natsHeaders } from '@nats-io/nats-core';
import { uniqueSuffix, waitFor } from '@trawl/testing';
import { connectForTests, gate } from '../../test/jetstream-fixture';
import type { MessagingConnection } from '../connection';
import { MessagingError, MessagingErrorCode } from '../messaging.errors';
import { StreamedRpcClient } from './rpc-client';
import { ACCEPT_WITHIN_HEADER, CALL_HEADER, HEAD_BYTES_HEADER, KIND_HEADER, WHOLE_HEADER } from './protocol';
import { RpcHandler, StreamedRpcServer } from './rpc-server';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const echo: RpcHandler = async ({ payload, headers }) => ({
  head: text(JSON.stringify({ got: new TextDecoder().decode(payload), header: headers['x-test'] ?? null })),
  body: Buffer.from(`body of ${new TextDecoder().decode(payload)}`),
});

async function codeOf(promise: Promise<unknown>): Promise<MessagingErrorCode | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (error instanceof MessagingError) return error.code;
    throw error;
  }
}

describe('streamed request/reply', () => {
  let clientConn: MessagingConnection;
  let serverConn: MessagingConnection;
  let subject: string;
  const servers: StreamedRpcServer[] = [];

  beforeAll(async () => {
    clientConn = await connectForTests('rpc-client-test');
    serverConn = await connectForTests('rpc-server-test');
  });
  afterAll(async () => {
    await Promise.all([clientConn.close(), serverConn.close()]);
  });
  beforeEach(() => {
    subject = `rpc-test-${uniqueSuffix()}.call.v1`;
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop(1_000)));
  });

  function serve(handler: RpcHandler, capacity = 4, conn = serverConn, heartbeatMs = 100): StreamedRpcServer {
    const server = new StreamedRpcServer(conn.nc, { subject, queue: 'workers', capacity, heartbeatMs, chunkBytes: 64 * 1024 });
    server.start(handler);
    servers.push(server);
    return server;
  }

  describe(StreamedRpcClient.name, () => {
    it('answers with the head and body the server gave, headers carried to the handler', async () => {
      serve(echo);
      await serverConn.nc.flush();
      const reply = await new StreamedRpcClient(clientConn.nc).call(subject, text('ping'), { headers: { 'X-Test': 'yes' } });
      expect(JSON.parse(new TextDecoder().decode(reply.head))).toEqual({ got: 'ping', header: 'yes' });
      expect(reply.body.toString()).toBe('body of ping');
    });

    it('reassembles a body many times larger than one message, byte for byte', async () => {
      const big = Buffer.alloc(3 * 1024 * 1024 + 17);
      for (let i = 0; i < big.length; i += 1) big[i] = (i * 31) % 251;
      serve(async () => ({ head: text('{}'), body: big }));
      await serverConn.nc.flush();
      const reply = await new StreamedRpcClient(clientConn.nc).call(subject, text('x'));
      expect(reply.body.equals(big)).toBe(true);
    });

    it('answers an empty body', async () => {
      serve(async () => ({ head: text('h'), body: Buffer.alloc(0) }));
      await serverConn.nc.flush();
      const reply = await new StreamedRpcClient(clientConn.nc).call(subject, text('x'));
      expect(reply.body.length).toBe(0);
    });

    it('fails with rpc_no_responders when nobody serves the subject', async () => {
      expect(await codeOf(new StreamedRpcClient(clientConn.nc).call(subject, text('x')))).toBe(MessagingErrorCode.RpcNoResponders);
    });

    it('fails with rpc_busy when every server is full, and the running call still completes', async () => {
      const release = gate();
      serve(async () => {
        await release.promise;
        return { head: text('done'), body: Buffer.alloc(0) };
      }, 1);
      await serverConn.nc.flush();
      const notTaken: string[] = [];
      const client = new StreamedRpcClient(clientConn.nc, { busyRetries: 2, onNotTaken: (reason) => notTaken.push(reason) });
      const first = client.call(subject, text('1'));
      await waitFor(() => servers[0].inFlight() === 1, { timeoutMs: 20_000 });
      await expect(client.call(subject, text('2'))).rejects.toMatchObject({
        code: MessagingErrorCode.RpcBusy,
        message: expect.stringContaining('was busy (3) or did not accept within 2000 ms (0)'),
      });
      // Asked three times (the first and two retries), refused busy each time.
      expect(notTaken).toEqual(['busy', 'busy', 'busy']);
      release.open();
      expect(new TextDecoder().decode((await first).head)).toBe('done');
    });

    it('tells late servers from busy ones: a member that never accepts is asked again, then the call fails with rpc_busy', async () => {
      // A stalled member: subscribed, so NATS routes calls to it, but it never answers.
      const stalled = serverConn.nc.subscribe(subject);
      await serverConn.nc.flush();
      const notTaken: string[] = [];
      const client = new StreamedRpcClient(clientConn.nc, {
        acceptTimeoutMs: 200,
        busyRetries: 1,
        onNotTaken: (reason) => notTaken.push(reason),
      });
      await expect(client.call(subject, text('x'))).rejects.toMatchObject({
        code: MessagingErrorCode.RpcBusy,
        message: expect.stringContaining('was busy (0) or did not accept within 200 ms (2)'),
      });
      expect(notTaken).toEqual(['late', 'late']);
      // Each try was offered, and each late one told to stop: the stalled member saw both. A round
      // trip on each connection first: the server has routed the client's last publish, and the
      // member's connection has read what the server sent it (on a loaded machine the second try
      // could still be on its way when the call failed).
      await clientConn.nc.flush();
      await serverConn.nc.flush();
      expect(stalled.getReceived()).toBeGreaterThanOrEqual(2);
      stalled.unsubscribe();
    });

    /** A server on a connection of its own (the test closes it: the process "dies"), whose handler runs until cancelled. */
    async function doomedServer() {
      const doomed = await connectForTests('rpc-doomed-server');
      const started = gate();
      serve(
        async ({ signal }) => {
          started.open();
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          return { head: text('too late'), body: Buffer.alloc(0) };
        },
        1,
        doomed,
      );
      await doomed.nc.flush();
      return { doomed, started };
    }

    it('fails with rpc_worker_lost when the server dies after accepting, instead of hanging', async () => {
      const { doomed, started } = await doomedServer();
      // Sees the server's accept on its way to the client.
      const observer = serverConn.nc.subscribe('_INBOX.>');
      await serverConn.nc.flush();
      const accepted = (async () => {
        for await (const msg of observer) if (msg.headers?.get(KIND_HEADER) === 'accepted') return;
      })();
      const call = codeOf(new StreamedRpcClient(clientConn.nc, { silenceTimeoutMs: 600, acceptTimeoutMs: 400 }).call(subject, text('x')));
      await started.promise;
      await accepted;
      observer.unsubscribe();
      await doomed.nc.close(); // the process "dies": no more beats, no reply
      expect(await call).toBe(MessagingErrorCode.RpcWorkerLost);
    });

    it('asks another server when the one that took the call dies before accepting it', async () => {
      const { doomed, started } = await doomedServer();
      // It may hold back its accept for 0.5 s: it dies well before, and the client asks again at 2 s.
      const call = new StreamedRpcClient(clientConn.nc, { acceptTimeoutMs: 2_000 }).call(subject, text('x'));
      await started.promise;
      await doomed.nc.close();
      serve(echo);
      await serverConn.nc.flush();
      const reply = await call;
      expect(JSON.parse(new TextDecoder().decode(reply.head))).toMatchObject({ got: 'x' });
    });

    it('keeps beating while a slow handler works longer than the silence timeout', async () => {
      serve(async () => {
        await new Promise((r) => setTimeout(r, 900));
        return { head: text('slow'), body: Buffer.from('ok') };
      });
      await serverConn.nc.flush();
      const reply = await new StreamedRpcClient(clientConn.nc, { silenceTimeoutMs: 400 }).call(subject, text('x'));
      expect(reply.body.toString()).toBe('ok');
    });

    it('on cancel tells the server, and rejects with rpc_cancelled only after the handler ended', async () => {
      const started = gate();
      let handlerEnded = false;
      serve(async ({ signal }) => {
        started.open();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        await new Promise((r) => setTimeout(r, 300)); // cleanup takes time: the caller must wait for it
        handlerEnded = true;
        return { head: text('cancelled'), body: Buffer.alloc(0) };
      });
      await serverConn.nc.flush();
      const abort = new AbortController();
      const call = new StreamedRpcClient(clientConn.nc).call(subject, text('x'), { signal: abort.signal });
      await started.promise;
      abort.abort();
      const outcome = await call.then(
        () => 'resolved',
        (error: MessagingError) => ({ code: error.code, handlerEnded }),
      );
      expect(outcome).toEqual({ code: MessagingErrorCode.RpcCancelled, handlerEnded: true });
      expect(servers[0].inFlight()).toBe(0);
    });

    it('serves many calls, in parallel and in turn, on one inbox subscription', async () => {
      serve(echo, 8);
      await serverConn.nc.flush();
      const own = await connectForTests('rpc-one-inbox');
      try {
        const client = new StreamedRpcClient(own.nc);
        const subscriptions = () =>
          (own.nc as unknown as { protocol: { subscriptions: { size(): number } } }).protocol.subscriptions.size();
        const before = subscriptions();
        const parallel = await Promise.all(Array.from({ length: 20 }, (_, i) => client.call(subject, text(`p${i}`))));
        expect(parallel.map((r) => r.body.toString())).toEqual(Array.from({ length: 20 }, (_, i) => `body of p${i}`));
        for (let i = 0; i < 5; i += 1) expect((await client.call(subject, text(`s${i}`))).body.toString()).toBe(`body of s${i}`);
        expect(subscriptions()).toBe(before + 1);
      } finally {
        await own.close();
      }
    });

    it('fails the calls in flight with rpc_worker_lost as soon as its connection closes, not after the silence timeout', async () => {
      const started = gate();
      serve(async ({ signal }) => {
        started.open();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        return { head: text('nobody listens'), body: Buffer.alloc(0) };
      });
      await serverConn.nc.flush();
      const doomed = await connectForTests('rpc-doomed-client');
      const call = codeOf(new StreamedRpcClient(doomed.nc, { silenceTimeoutMs: 60_000 }).call(subject, text('x')));
      await started.promise;
      const closedAt = Date.now();
      await doomed.nc.close();
      expect(await call).toBe(MessagingErrorCode.RpcWorkerLost);
      expect(Date.now() - closedAt).toBeLessThan(30_000);
    });

    it('fails with rpc_remote_failure when the handler throws', async () => {
      serve(async () => {
        throw new Error('boom');
      });
      await serverConn.nc.flush();
      expect(await codeOf(new StreamedRpcClient(clientConn.nc).call(subject, text('x')))).toBe(MessagingErrorCode.RpcRemoteFailure);
    });
  });

  describe(StreamedRpcServer.name, () => {
    it('spreads calls over members: two servers of capacity 1 serve two calls at once', async () => {
      const release = gate();
      const seen: string[] = [];
      for (const name of ['a', 'b']) {
        serve(async () => {
          seen.push(name);
          await release.promise;
          return { head: text(name), body: Buffer.alloc(0) };
        }, 1);
      }
      await serverConn.nc.flush();
      const client = new StreamedRpcClient(clientConn.nc, { busyRetries: 20 });
      const calls = [client.call(subject, text('1')), client.call(subject, text('2'))];
      await waitFor(() => seen.length === 2, { timeoutMs: 20_000 });
      release.open();
      const heads = (await Promise.all(calls)).map((r) => new TextDecoder().decode(r.head)).sort();
      expect(heads).toEqual(['a', 'b']);
    });

    it('answers a small reply in one message to a client that asks for it, in head and chunks to one that does not', async () => {
      serve(async () => ({ head: text('{"h":1}'), body: Buffer.from('the body') }));
      await serverConn.nc.flush();
      const kindsOf = async (whole: boolean) => {
        const inbox = createInbox();
        const sub = clientConn.nc.subscribe(inbox);
        const h = natsHeaders();
        h.set(CALL_HEADER, `call-${whole}`);
        if (whole) h.set(WHOLE_HEADER, '1');
        clientConn.nc.publish(subject, text('x'), { reply: inbox, headers: h });
        const got: Array<{ kind: string; data: string; headBytes?: string }> = [];
        for await (const msg of sub) {
          const kind = msg.headers?.get(KIND_HEADER) ?? '';
          got.push({ kind, data: msg.string(), ...(kind === 'whole' && { headBytes: msg.headers?.get(HEAD_BYTES_HEADER) }) });
          if (kind === 'whole' || kind === 'chunk') break;
        }
        return got;
      };
      expect(await kindsOf(true)).toEqual([
        { kind: 'accepted', data: '' },
        { kind: 'whole', data: '{"h":1}the body', headBytes: '7' },
      ]);
      expect(await kindsOf(false)).toEqual([
        { kind: 'accepted', data: '' },
        { kind: 'head', data: '{"h":1}' },
        { kind: 'chunk', data: 'the body' },
      ]);
    });

    it("sends no accept for a call answered within the client's accept window; a slower call is accepted when the window ends", async () => {
      const slow = gate();
      serve(
        async ({ payload }) => {
          if (new TextDecoder().decode(payload) === 'slow') await slow.promise;
          return { head: text('{}'), body: Buffer.from('b') };
        },
        4,
        serverConn,
        60_000,
      );
      await serverConn.nc.flush();
      const kindsOf = async (payload: string, acceptWithin: string | undefined, whenAccepted?: () => void) => {
        const inbox = createInbox();
        const sub = clientConn.nc.subscribe(inbox);
        const h = natsHeaders();
        h.set(CALL_HEADER, `call-${payload}-${acceptWithin}`);
        h.set(WHOLE_HEADER, '1');
        if (acceptWithin !== undefined) h.set(ACCEPT_WITHIN_HEADER, acceptWithin);
        clientConn.nc.publish(subject, text(payload), { reply: inbox, headers: h });
        const kinds: string[] = [];
        for await (const msg of sub) {
          const kind = msg.headers?.get(KIND_HEADER) ?? '';
          kinds.push(kind);
          if (kind === 'accepted') whenAccepted?.();
          if (kind === 'whole') break;
        }
        return kinds;
      };
      expect(await kindsOf('quick', '5000')).toEqual(['whole']);
      // A client that does not say (an older one) gets its accept at once, as before.
      expect(await kindsOf('quick', undefined)).toEqual(['accepted', 'whole']);
      expect(await kindsOf('slow', '50', () => slow.open())).toEqual(['accepted', 'whole']);
    });

    it('asks servers to hold back their accept for a quarter of its accept timeout, unless the call must not run twice', async () => {
      const seen: string[] = [];
      serve(async ({ headers }) => {
        seen.push(headers['trawl-rpc-accept-within'] ?? 'none');
        return { head: text('{}'), body: Buffer.from('b') };
      });
      const raw = clientConn.nc.subscribe(`${subject}`, { queue: 'observers' });
      const client = new StreamedRpcClient(clientConn.nc, { acceptTimeoutMs: 400 });
      await clientConn.nc.flush();
      await client.call(subject, text('x'));
      // A call that must not run twice asks for its accept at once.
      await client.call(subject, text('y'), { idempotent: false });
      // Each call's first ask: on a loaded machine a call not accepted within its timeout asks again.
      const asked = new Map<string, string | undefined>();
      for await (const msg of raw) {
        if (!asked.has(msg.string())) asked.set(msg.string(), msg.headers?.get(ACCEPT_WITHIN_HEADER) || undefined);
        if (asked.size === 2) break;
      }
      expect(Object.fromEntries(asked)).toEqual({ x: '100', y: undefined });
      // The protocol's own headers are not the handler's business.
      expect(new Set(seen)).toEqual(new Set(['none']));
    });

    it('stop waits for the call in flight and then serves no more', async () => {
      const release = gate();
      const server = serve(async () => {
        await release.promise;
        return { head: text('finished'), body: Buffer.alloc(0) };
      });
      await serverConn.nc.flush();
      const client = new StreamedRpcClient(clientConn.nc);
      const running = client.call(subject, text('x'));
      await waitFor(() => server.inFlight() === 1, { timeoutMs: 20_000 });
      let stopped = false;
      const stopping = server.stop(5_000).then(() => (stopped = true));
      await serverConn.nc.flush();
      expect(await codeOf(client.call(subject, text('late')))).toBe(MessagingErrorCode.RpcNoResponders);
      expect(stopped).toBe(false);
      release.open();
      expect(new TextDecoder().decode((await running).head)).toBe('finished');
      await stopping;
      expect(stopped).toBe(true);
    });
  });
});
