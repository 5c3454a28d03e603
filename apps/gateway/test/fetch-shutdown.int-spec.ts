import { connect } from 'node:net';
import { waitFor } from '@trawl/testing';
import { answer, gate, GatewayReplicas, slotsHeld, startGatewayReplicas, TestWorker } from './fetch-harness';

/** Whether a new TCP connection to `url` is refused: the server stopped listening. */
function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('A gateway replica shutting down', () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;

  beforeAll(async () => {
    // Releases linger as long as config allows: longer than the shutdown takes.
    gw = await startGatewayReplicas(1, { FETCH_RELEASE_LINGER_MS: '1000' });
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  it('answers the requests under way, then writes their slot releases before its pool closes', async () => {
    const tenant = await gw.createTenant({ concurrency: 10 });
    const held = () => slotsHeld(gw, tenant.tenant_id);
    const url = gw.urls[0]!;
    const release = gate();
    worker.behaviour = async (request) => {
      await release.wait;
      return answer(request, { body: 'ok' });
    };
    const underWay = fetch(`${url}/v1/?${q({ apikey: tenant.api_key, url: 'http://shop.test/' })}`);
    await waitFor(() => worker.inFlight() === 1, { what: 'the request at the worker' });
    const stopped = gw.stopReplicas();
    await waitFor(() => refusesConnections(url), { what: 'the replica no longer taking connections' });
    release.open();
    // The roomy tenant's answer leaves before its release is written; the drain waits for it.
    expect((await underWay).status).toBe(200);
    await stopped;
    expect(await held()).toBe(0);
  });
});

describe('A gateway replica shutting down while a worker still works for a client that left', () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;

  beforeAll(async () => {
    gw = await startGatewayReplicas(1);
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  it('gives the slot back instead of leaving it held for its lease', async () => {
    const tenant = await gw.createTenant({ concurrency: 2 });
    const url = gw.urls[0]!;
    const finish = gate();
    let told = false;
    worker.behaviour = async (request, call) => {
      call.signal.addEventListener('abort', () => (told = true), { once: true });
      // A worker slow to stop: the gateway keeps the slot until it has (CTX0001).
      await finish.wait;
      return answer(request, { status: 500, billed_tier: null, error: { code: 'CTX0001', detail: 'cancelled' } });
    };
    const client = new AbortController();
    const leaving = fetch(`${url}/v1/?${q({ apikey: tenant.api_key, url: 'http://shop.test/' })}`, { signal: client.signal }).catch(
      () => undefined,
    );
    await waitFor(() => worker.inFlight() === 1, { what: 'the request at the worker' });
    client.abort();
    await leaving;
    await waitFor(() => told, { what: 'the worker told the client left' });
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(1);
    await gw.stopReplicas();
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(0);
    finish.open();
  });
});
