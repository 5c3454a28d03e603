import { waitFor } from '@trawl/testing';
import { answer, gate, GatewayReplicas, json, slotsHeld, startGatewayReplicas, TestWorker } from './fetch-harness';
import { ADMIN_TOKEN } from './gateway-harness';

const TARGET = 'http://shop.test/';
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** The tenant's rate window as Postgres holds it: its start and the requests counted in it. */
async function rateWindowOf(gw: GatewayReplicas, tenantId: string): Promise<{ start: string; requests: number }> {
  const { rows } = await gw.sql.query(`SELECT window_start::text AS start, requests FROM fetch_rate_windows WHERE tenant_id = $1`, [
    tenantId,
  ]);
  return rows[0];
}

/** Runs `lockQuery` (a `SELECT … FOR UPDATE` of the tenant's rows) in a transaction left open; the returned function commits it. */
async function rowsLocked(gw: GatewayReplicas, lockQuery: string, tenantId: string): Promise<() => Promise<void>> {
  const client = await gw.sql.connect();
  await client.query('BEGIN');
  await client.query(lockQuery, [tenantId]);
  return async () => {
    await client.query('COMMIT');
    client.release();
  };
}

describe('Fetch limits across two gateway replicas', () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;
  let a: string;
  let b: string;

  beforeAll(async () => {
    gw = await startGatewayReplicas(2, {
      CLIENT_ERROR_MIN_REQUESTS: '4',
      CLIENT_ERROR_RATE_PERCENT: '75',
      CLIENT_BLOCK_SECONDS: '60',
      // The test plays the load balancer in front of the gateway, telling client addresses apart.
      TRUSTED_PROXIES: '127.0.0.1,::1',
    });
    [a, b] = gw.urls as [string, string];
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  beforeEach(() => {
    worker.behaviour = async (request) => answer(request, { body: 'ok' });
  });

  describe('concurrency', () => {
    it('holds the tenant to its limit across replicas (AUTH006), and frees slots as calls end', async () => {
      const tenant = await gw.createTenant({ concurrency: 2 });
      const release = gate();
      worker.behaviour = async (request) => {
        await release.wait;
        return answer(request, { body: 'slow' });
      };
      const url = (base: string) => `${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`;
      const first = fetch(url(a));
      const second = fetch(url(b));
      await waitFor(() => worker.inFlight() === 2, { what: 'two requests at the worker' });
      for (const base of [a, b]) {
        const refused = await fetch(url(base));
        expect(refused.status).toBe(429);
        expect(await json(refused)).toMatchObject({ code: 'AUTH006', status: 429 });
        expect(refused.headers.get('concurrency-limit')).toBe('2');
        expect(refused.headers.get('concurrency-remaining')).toBe('0');
      }
      release.open();
      const answers = await Promise.all([first, second]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      // The first claimed with half the slots in use: its release may follow its answer by a few ms.
      await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'both slots released' });
      worker.behaviour = async (request) => answer(request, { body: 'ok' });
      const again = await fetch(url(b));
      expect(again.status).toBe(200);
      expect(again.headers.get('concurrency-remaining')).toBe('2');
    });

    it('gives back the slot admission took for a request refused after it (REQS004, AUTH004)', async () => {
      const tenant = await gw.createTenant({ concurrency: 1 });
      const invalid = await fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET, wait: '999999' })}`);
      expect(invalid.status).toBe(400);
      expect(await json(invalid)).toMatchObject({ code: 'REQS004' });
      expect(await slotsHeld(gw, tenant.tenant_id)).toBe(0);
      const ok = await fetch(`${b}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('concurrency-remaining')).toBe('1');

      const broke = await gw.createTenant({ concurrency: 1, credits: 0 });
      const spent = await fetch(`${a}/v1/?${q({ apikey: broke.api_key, url: TARGET })}`);
      expect(await json(spent)).toMatchObject({ code: 'AUTH004' });
      expect(await slotsHeld(gw, broke.tenant_id)).toBe(0);
    });

    it("answers a tenant using at most half its slots before the slot's release commits; nearer the limit, after", async () => {
      // Holds the tenant's live slot row, so that its release has to wait.
      const locked = (tenantId: string) =>
        rowsLocked(gw, `SELECT 1 FROM fetch_slots WHERE tenant_id = $1 AND lease_until > now() FOR UPDATE`, tenantId);
      const releaseWaiting = async () => {
        const { rows } = await gw.sql.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE fetch_slots%'`,
        );
        return rows[0].n === 1;
      };
      for (const [concurrency, answersFirst] of [
        [4, true],
        [1, false],
      ] as const) {
        const tenant = await gw.createTenant({ concurrency });
        const go = gate();
        worker.behaviour = async (request) => {
          await go.wait;
          return answer(request, { body: 'ok' });
        };
        let settled = false;
        const status = fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`).then((r) => {
          settled = true;
          return r.status;
        });
        await waitFor(() => worker.inFlight() === 1, { what: 'the request at the worker' });
        const unlock = await locked(tenant.tenant_id);
        go.open();
        if (answersFirst) {
          expect(await status).toBe(200);
          expect(await slotsHeld(gw, tenant.tenant_id)).toBe(1); // its release still waits on the row
        } else {
          await waitFor(releaseWaiting, { what: 'the release waiting on the locked row' });
          expect(settled).toBe(false);
        }
        await unlock();
        expect(await status).toBe(200);
        await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slot released' });
      }
    });

    it('frees the slots of a crashed replica when their lease passes', async () => {
      const tenant = await gw.createTenant({ concurrency: 1 });
      // A replica that died mid-request leaves its slot row behind, lease still running.
      await gw.sql.query(
        `INSERT INTO fetch_slots (tenant_id, slot, holder, lease_until) VALUES ($1, 1, 'dead', now() + interval '1 hour')`,
        [tenant.tenant_id],
      );
      expect((await fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`)).status).toBe(429);
      await gw.sql.query(`UPDATE fetch_slots SET lease_until = now() - interval '1 second' WHERE tenant_id = $1`, [tenant.tenant_id]);
      expect((await fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`)).status).toBe(200);
    });

    it('keeps the slot of a request the client cancelled until the worker stopped (CTX0001)', async () => {
      const tenant = await gw.createTenant({ concurrency: 1 });
      const finish = gate();
      let workerSawCancel = false;
      worker.behaviour = async (request, call) => {
        await new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true }));
        workerSawCancel = true;
        await finish.wait;
        return answer(request, { status: 500, billed_tier: null, error: { code: 'CTX0001', detail: 'cancelled' } });
      };
      const client = new AbortController();
      const abandoned = fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, { signal: client.signal }).catch(
        (error: Error) => error.name,
      );
      await waitFor(() => worker.inFlight() === 1, { what: 'the request at the worker' });
      client.abort();
      expect(await abandoned).toBe('AbortError');
      await waitFor(() => workerSawCancel, { what: 'the worker to be told' });
      expect(await slotsHeld(gw, tenant.tenant_id)).toBe(1);
      const meanwhile = await fetch(`${b}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect((await json(meanwhile)).code).toBe('AUTH006');
      finish.open();
      await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slot to be freed' });
      await gw.flushCharges();
      const { rows } = await gw.sql.query(`SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1`, [tenant.tenant_id]);
      expect(rows[0].n).toBe(0);
    });
  });

  describe('rate limit', () => {
    it('refuses requests over the minute limit with AUTH008 and Retry-After, on any replica', async () => {
      const tenant = await gw.createTenant({ rate_limit_per_minute: 2 });
      const url = (base: string) => `${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`;
      expect((await fetch(url(a))).status).toBe(200);
      expect((await fetch(url(b))).status).toBe(200);
      const refused = await fetch(url(a));
      expect(refused.status).toBe(429);
      expect((await json(refused)).code).toBe('AUTH008');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    });
  });

  describe('client address error rate', () => {
    it('blocks an address whose answers were mostly errors, on every replica (BLK0001)', async () => {
      const from = { 'x-forwarded-for': '198.51.100.7' };
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${a}/v1/?${q({ apikey: '0'.repeat(40), url: TARGET })}`, { headers: from });
        expect(response.status).toBe(401);
      }
      // Replica a writes its counts within CLIENT_HEALTH_FLUSH_MS. Until then, 200s from b would
      // count as this address's successes and could dilute the rate below the threshold.
      await waitFor(
        async () => {
          const { rows } = await gw.sql.query(
            `SELECT 1 FROM client_address_health WHERE address = '198.51.100.7' AND blocked_until > now()`,
          );
          return rows.length === 1;
        },
        { what: 'the block written by replica a' },
      );
      const tenant = await gw.createTenant();
      const blocked = await waitFor(
        async () => {
          const response = await fetch(`${b}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, { headers: from });
          return response.status === 403 ? response : undefined;
        },
        { what: 'the address to be blocked' },
      );
      expect(await json(blocked)).toMatchObject({ code: 'BLK0001', status: 403 });
      const other = await fetch(`${b}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, {
        headers: { 'x-forwarded-for': '198.51.100.9' },
      });
      expect(other.status).toBe(200);
    });

    it('never blocks a client for AUTH006 refusals: a client retrying at its concurrency limit is well-behaved', async () => {
      const tenant = await gw.createTenant({ concurrency: 1 });
      const from = { 'x-forwarded-for': '198.51.100.21' };
      const url = (base: string) => `${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`;
      const release = gate();
      worker.behaviour = async (request) => {
        await release.wait;
        return answer(request, { body: 'slow' });
      };
      const held = fetch(url(a), { headers: from });
      await waitFor(() => worker.inFlight() === 1, { what: 'the request at the worker' });
      // Twice the answers that could block the address (CLIENT_ERROR_MIN_REQUESTS is 4 here), all 429.
      for (let i = 0; i < 8; i++) {
        const refused = await fetch(url(i % 2 === 0 ? a : b), { headers: from });
        expect((await json(refused)).code).toBe('AUTH006');
      }
      release.open();
      expect((await held).status).toBe(200);
      await waitFor(
        async () => {
          const { rows } = await gw.sql.query(`SELECT requests FROM client_address_health WHERE address = $1`, ['198.51.100.21']);
          return rows[0]?.requests === 9;
        },
        { what: 'the nine answers counted' },
      );
      worker.behaviour = async (request) => answer(request, { body: 'ok' });
      const after = await fetch(url(b), { headers: from });
      expect(after.status).toBe(200);
      const { rows } = await gw.sql.query(`SELECT errors, blocked_until FROM client_address_health WHERE address = $1`, ['198.51.100.21']);
      expect(rows[0]).toEqual({ errors: 0, blocked_until: null });
    });

    it('believes X-Forwarded-For only from a trusted proxy: a client cannot pick its own address', async () => {
      const direct = await startGatewayReplicas(1);
      try {
        const forged = '198.51.100.77';
        const response = await fetch(`${direct.urls[0]}/v1/?${q({ apikey: '0'.repeat(40), url: TARGET })}`, {
          headers: { 'x-forwarded-for': forged },
        });
        expect(response.status).toBe(401);
        const rows = await waitFor(
          async () => {
            const { rows } = await direct.sql.query<{ address: string }>(`SELECT host(address) AS address FROM client_address_health`);
            return rows.length > 0 ? rows : undefined;
          },
          { what: 'the answer to be counted' },
        );
        expect(rows.map((r) => r.address)).not.toContain(forged);
      } finally {
        await direct.close();
      }
    });

    it("does not count the target's failures as the client's errors", async () => {
      const tenant = await gw.createTenant();
      const address = '198.51.100.8';
      worker.behaviour = async (request) =>
        answer(request, {
          status: 404,
          billed_tier: 'basic',
          error: { code: 'RESP002', detail: 'Not found' },
          content_type: 'application/problem+json',
        });
      for (let i = 0; i < 5; i++) {
        const response = await fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, { headers: { 'x-forwarded-for': address } });
        expect(response.status).toBe(404);
      }
      const row = await waitFor(
        async () => {
          const { rows } = await gw.sql.query(`SELECT requests, errors, blocked_until FROM client_address_health WHERE address = $1`, [
            address,
          ]);
          return rows[0]?.requests === 5 ? rows[0] : undefined;
        },
        { what: 'five answers counted' },
      );
      expect(row).toEqual({ requests: 5, errors: 0, blocked_until: null });
    });
  });
});

describe("A replica's allotment of a busy tenant's limits", () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;
  let a: string;
  let b: string;

  beforeAll(async () => {
    // Slots kept idle stay until another replica asks for them (or the tenant's next request takes them).
    gw = await startGatewayReplicas(2, { FETCH_ALLOTMENT_IDLE_MS: '60000', FETCH_ALLOTMENT_MS: '5000' });
    [a, b] = gw.urls as [string, string];
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  beforeEach(() => {
    worker.behaviour = async (request) => answer(request, { body: 'ok' });
  });

  const url = (base: string, tenant: { api_key: string }) => `${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`;

  /** Requests replica `i` admitted, by what admitted them. */
  async function admittedBy(i: number): Promise<{ allotment: number; statement: number }> {
    const text = await (await fetch(`${gw.adminUrls[i]}/metrics`)).text();
    const value = (by: string) =>
      Number(new RegExp(`^trawl_fetch_admissions_total\\{[^}]*by="${by}"[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { allotment: value('allotment'), statement: value('statement') };
  }

  it("admits most of a busy tenant's requests without a statement each, every one counted in its window, and keeps its slot between them", async () => {
    const tenant = await gw.createTenant({ concurrency: 10, rate_limit_per_minute: 1_000 });
    const before = await admittedBy(0);
    for (let i = 0; i < 30; i++) expect((await fetch(url(a, tenant))).status).toBe(200);
    const after = await admittedBy(0);
    const statements = after.statement - before.statement;
    expect(statements + after.allotment - before.allotment).toBe(30);
    // Set aside 1, then 5, then 13, then more: a handful of statements, not 30.
    expect(statements).toBeLessThanOrEqual(8);
    // Counted before it was admitted: the window holds every request (a minute may have begun meanwhile).
    const window = await rateWindowOf(gw, tenant.tenant_id);
    expect(window.requests).toBeGreaterThan(0);
    expect(window.requests).toBeLessThanOrEqual(30 + 32);
    // The one slot its requests took in turn is held, idle, for its next request.
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(1);
  });

  it("takes an operator's change of the account into a busy tenant's next request at once, on every replica", async () => {
    const tenant = await gw.createTenant({ concurrency: 10, rate_limit_per_minute: 1_000 });
    for (let i = 0; i < 5; i++) expect((await fetch(url(a, tenant))).status).toBe(200);
    const before = await admittedBy(0);
    expect((await fetch(url(a, tenant))).status).toBe(200);
    expect((await admittedBy(0)).allotment).toBe(before.allotment + 1); // admitted by replica a's allotment
    // The admin API of replica b (every replica serves it) suspends the tenant; a's allotment must not outlive that.
    const suspended = await fetch(`${gw.adminUrls[1]}/admin/v1/tenants/${tenant.tenant_id}/suspend`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(suspended.status).toBe(200);
    const refused = await fetch(url(a, tenant));
    expect(refused.status).toBe(402);
    expect((await json(refused)).code).toBe('AUTH011');
  });

  it('gives another replica the slot it keeps idle, so that the tenant at its limit there is served, and refuses past the limit', async () => {
    const tenant = await gw.createTenant({ concurrency: 2 });
    for (let i = 0; i < 3; i++) expect((await fetch(url(a, tenant))).status).toBe(200);
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(1); // kept on replica a
    const release = gate();
    worker.behaviour = async (request) => {
      await release.wait;
      return answer(request, { body: 'slow' });
    };
    const first = fetch(url(b, tenant));
    const second = fetch(url(b, tenant));
    await waitFor(() => worker.inFlight() === 2, { what: 'both requests of replica b at the worker' });
    for (const base of [a, b]) {
      const refused = await fetch(url(base, tenant));
      expect(refused.status).toBe(429);
      expect(await json(refused)).toMatchObject({ code: 'AUTH006' });
    }
    release.open();
    expect((await Promise.all([first, second])).map((r) => r.status)).toEqual([200, 200]);
  });

  it('gives back the requests it set aside, so that another replica admits the tenant up to its rate limit and not one past it', async () => {
    // Rate windows are calendar minutes: start early enough in one to finish in it.
    await waitFor(() => new Date().getUTCSeconds() < 30, { what: 'a minute with 30 s left', timeoutMs: 35_000, intervalMs: 250 });
    const limit = 40;
    const tenant = await gw.createTenant({ concurrency: 10, rate_limit_per_minute: limit });
    let admitted = 0;
    for (let i = 0; i < 3; i++) if ((await fetch(url(a, tenant))).status === 200) admitted++;
    expect(admitted).toBe(3);
    // Replica a holds requests set aside beyond the three: counted, unused.
    const window = await rateWindowOf(gw, tenant.tenant_id);
    expect(window.requests).toBeGreaterThan(3);
    let refused: Response | undefined;
    for (let i = 0; i < limit && !refused; i++) {
      const response = await fetch(url(b, tenant));
      if (response.status === 200) admitted++;
      else refused = response;
    }
    expect(refused?.status).toBe(429);
    expect((await json(refused!)).code).toBe('AUTH008');
    expect((await fetch(url(a, tenant))).status).toBe(429);
    const last = await rateWindowOf(gw, tenant.tenant_id);
    if (last.start === window.start) expect(admitted).toBe(limit);
  });
});

describe('Fetch head starts (admission by a statement each, no allotment)', () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;
  let a: string;

  beforeAll(async () => {
    // Head starts overlap a statement with the worker's fetch: every admission here is a statement.
    gw = await startGatewayReplicas(1, { FETCH_ALLOTMENT_MS: '0' });
    [a] = gw.urls as [string];
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  beforeEach(() => {
    worker.behaviour = async (request) => answer(request, { body: 'ok' });
  });

  /** Holds the tenant's rate-window row, so that its next admission waits in Postgres. */
  const admissionHeld = (tenantId: string) => rowsLocked(gw, `SELECT 1 FROM fetch_rate_windows WHERE tenant_id = $1 FOR UPDATE`, tenantId);
  const admissionsWaiting = async () => {
    const { rows } = await gw.sql.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH rate AS%'`,
    );
    return rows[0].n as number;
  };
  const seenBy =
    (tenant: { api_key: string }) =>
    (params: Record<string, string> = {}, init: RequestInit = {}) =>
      fetch(`${a}/v1/?${q({ apikey: tenant.api_key, url: TARGET, ...params })}`, init);

  it("sends a roomy tenant's GET to a worker while its admission waits in Postgres; a POST waits for its admission", async () => {
    const tenant = await gw.createTenant({ concurrency: 10 });
    const send = seenBy(tenant);
    expect((await send()).status).toBe(200); // this replica now knows the tenant is far from its limits
    const atWorker = worker.requests.length;
    const unlock = await admissionHeld(tenant.tenant_id);
    const get = send({ url: `${TARGET}early` });
    await waitFor(() => worker.requests.length === atWorker + 1, { what: 'the GET at the worker before its admission' });
    await waitFor(async () => (await admissionsWaiting()) === 1, { what: 'its admission waiting on the locked row' });
    const post = send(
      { url: `${TARGET}form` },
      { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    );
    await waitFor(async () => (await admissionsWaiting()) === 2, { what: "the POST's admission waiting" });
    expect(worker.requests.length).toBe(atWorker + 1);
    await unlock();
    expect((await get).status).toBe(200);
    expect((await post).status).toBe(200);
    expect(worker.requests.slice(atWorker).map((r) => r.url)).toEqual([`${TARGET}early`, `${TARGET}form`]);
    await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slots released' });
  });

  it('calls a request that started early off at the worker when its admission refuses it, and bills nothing', async () => {
    const tenant = await gw.createTenant({ concurrency: 10 });
    const send = seenBy(tenant);
    expect((await send()).status).toBe(200);
    // The replica still remembers an active account; Postgres no longer has one.
    expect((await gw.patchTenant(tenant.tenant_id, { subscription_status: 'cancelled' })).status).toBe(200);
    let calledOff = false;
    const stopped = gate();
    worker.behaviour = async (request, call) => {
      await new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true }));
      calledOff = true;
      // Still winding down: the slot admission took stays held until the worker has stopped.
      await stopped.wait;
      return answer(request, { status: 500, billed_tier: null, error: { code: 'CTX0001', detail: 'cancelled' } });
    };
    const atWorker = worker.requests.length;
    const unlock = await admissionHeld(tenant.tenant_id);
    const refused = send();
    await waitFor(() => worker.requests.length === atWorker + 1, { what: 'the request at the worker before its admission' });
    await unlock();
    const answered = await refused;
    expect(answered.status).toBe(402);
    expect(await json(answered)).toMatchObject({ code: 'AUTH011' });
    await waitFor(() => calledOff, { what: 'the worker told to stop' });
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(1);
    stopped.open();
    await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slot released once the worker stopped' });
    await gw.flushCharges();
    const { rows } = await gw.sql.query(`SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1`, [tenant.tenant_id]);
    expect(rows[0].n).toBe(1); // the first request only
  });
  it('answers the refusal, unbilled, when the page of a request that started early came before its admission', async () => {
    const tenant = await gw.createTenant({ concurrency: 10 });
    const send = seenBy(tenant);
    expect((await send()).status).toBe(200);
    expect((await gw.patchTenant(tenant.tenant_id, { subscription_status: 'cancelled' })).status).toBe(200);
    const answered = gate();
    worker.behaviour = async (request) => {
      answered.open();
      return answer(request, { body: 'a billable page' });
    };
    const unlock = await admissionHeld(tenant.tenant_id);
    const refused = send();
    await answered.wait;
    // The page is on its way to the gateway (published, and through NATS) before admission returns.
    await waitFor(() => worker.inFlight() === 0, { what: 'the worker done with the page' });
    await worker.nc.flush();
    await waitFor(async () => (await admissionsWaiting()) === 1, { what: 'its admission waiting on the locked row' });
    await unlock();
    const response = await refused;
    expect(response.status).toBe(402);
    expect(await json(response)).toMatchObject({ code: 'AUTH011' });
    await gw.flushCharges();
    const { rows } = await gw.sql.query(`SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1`, [tenant.tenant_id]);
    expect(rows[0].n).toBe(1); // the first request only
    await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slot released' });
  });
});

describe('Fetch admissions shared by requests of a tenant', () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;

  beforeAll(async () => {
    // A linger far longer than the requests below take to arrive; every admission a statement.
    gw = await startGatewayReplicas(1, { FETCH_ADMISSION_LINGER_MS: '1000', FETCH_ALLOTMENT_MS: '0' });
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  let afterRelease: (() => void) | undefined;
  afterEach(() => afterRelease?.()); // a failed test must not leave the worker stuck

  async function admissionBatches(): Promise<{ count: number; sum: number }> {
    const text = await (await fetch(`${gw.adminUrls[0]}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { count: value('trawl_fetch_admission_batch_requests_count'), sum: value('trawl_fetch_admission_batch_requests_sum') };
  }

  it('admits requests that started early together in one statement: each its own slot, every one counted', async () => {
    const tenant = await gw.createTenant({ concurrency: 40 });
    const url = `${gw.urls[0]}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`;
    expect((await fetch(url)).status).toBe(200); // now known to be far from its limits
    const firstWindow = await rateWindowOf(gw, tenant.tenant_id);
    const release = gate();
    afterRelease = release.open;
    worker.behaviour = async (request) => {
      await release.wait;
      return answer(request, { body: 'ok' });
    };
    const before = await admissionBatches();
    const answers = Array.from({ length: 5 }, () => fetch(url));
    await waitFor(() => worker.inFlight() === 5, { what: 'five requests at the worker' });
    // Their workers still at it, they wait out the linger together.
    await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 5, { what: 'their five slots taken' });
    const after = await admissionBatches();
    expect(after.count - before.count).toBe(1);
    expect(after.sum - before.sum).toBe(5);
    release.open();
    const responses = await Promise.all(answers);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // Each counted the slots of those admitted before it in the statement (and its own, given back).
    const remaining = responses.map((r) => Number(r.headers.get('concurrency-remaining')));
    expect([...remaining].sort()).toEqual([36, 37, 38, 39, 40]);
    // Rate windows are calendar minutes: the first request counts with the five unless a minute began between them.
    const window = await rateWindowOf(gw, tenant.tenant_id);
    expect(window.requests).toBe(window.start === firstWindow.start ? 6 : 5);
    await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slots released' });
  });

  it('admits a request that started early at once when its worker answers, not after the linger', async () => {
    const tenant = await gw.createTenant({ concurrency: 40 });
    const url = `${gw.urls[0]}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`;
    expect((await fetch(url)).status).toBe(200);
    const started = Date.now();
    expect((await fetch(url)).status).toBe(200);
    // The linger is 1 s: an answer that waited it out would take longer.
    expect(Date.now() - started).toBeLessThan(900);
  });
});

describe('Fetch answers when the workers fail', () => {
  let gw: GatewayReplicas;
  let base: string;

  beforeAll(async () => {
    gw = await startGatewayReplicas(1, {
      // Long enough for a test to start a second worker before a lost GET is asked again.
      FETCH_RPC_ACCEPT_TIMEOUT_MS: '1500',
      FETCH_RPC_SILENCE_TIMEOUT_MS: '600',
      FETCH_RPC_BUSY_RETRIES: '1',
      // Leaves a GET asked again after the accept timeout time to be answered.
      FETCH_DEADLINE_MS: '4000',
      FETCH_DEADLINE_MARGIN_MS: '0',
    });
    base = gw.urls[0]!;
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('answers 503 RESP009 with a jittered Retry-After when no worker serves', async () => {
    const tenant = await gw.createTenant();
    const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
    expect(response.status).toBe(503);
    expect(await json(response)).toMatchObject({ code: 'RESP009', detail: expect.stringContaining('retry') });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(response.headers.get('retry-after'))).toBeLessThanOrEqual(5);
    expect(response.headers.get('concurrency-limit')).toBe('5');
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(0);
  });

  it('answers 503 RESP009 when every worker is busy', async () => {
    const worker = await TestWorker.start(gw.prefix, { capacity: 1 });
    try {
      const tenant = await gw.createTenant();
      const release = gate();
      worker.behaviour = async (request) => {
        await release.wait;
        return answer(request);
      };
      const held = fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      await waitFor(() => worker.inFlight() === 1, { what: 'the worker to be full' });
      const busy = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(busy.status).toBe(503);
      expect((await json(busy)).code).toBe('RESP009');
      release.open();
      expect((await held).status).toBe(200);
    } finally {
      await worker.close();
    }
  });

  it('answers 500 ERR0001 when the worker dies mid-request with a body, never sending it twice, and frees the slot', async () => {
    const worker = await TestWorker.start(gw.prefix);
    const tenant = await gw.createTenant();
    worker.behaviour = () => new Promise(() => undefined);
    const pending = fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, { method: 'POST', body: 'order=1' });
    await waitFor(() => worker.requests.length === 1, { what: 'the request at the worker' });
    // The worker's process dies: its connection goes, and with it the beats.
    await worker.nc.close();
    const response = await pending;
    expect(response.status).toBe(500);
    expect(await json(response)).toMatchObject({ code: 'ERR0001', detail: expect.stringContaining('retry') });
    expect(await slotsHeld(gw, tenant.tenant_id)).toBe(0);
  });

  it('asks another worker for a GET whose worker died before accepting it', async () => {
    const doomed = await TestWorker.start(gw.prefix);
    const tenant = await gw.createTenant();
    const healthy = gate();
    // Dies as soon as it has the request, before the accept it may hold back (a quarter of 1.5 s).
    doomed.behaviour = async () => {
      await doomed.nc.close();
      healthy.open();
      return new Promise(() => undefined);
    };
    const pending = fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
    await healthy.wait;
    const other = await TestWorker.start(gw.prefix);
    try {
      const response = await pending;
      expect(response.status).toBe(200);
      expect(doomed.requests).toHaveLength(1);
      expect(other.requests).toHaveLength(1);
      await waitFor(async () => (await slotsHeld(gw, tenant.tenant_id)) === 0, { what: 'the slot released' });
    } finally {
      await other.close();
    }
  });

  it('answers 504 CTX0002 when no answer comes by the deadline, and tells the worker', async () => {
    const worker = await TestWorker.start(gw.prefix);
    try {
      const tenant = await gw.createTenant();
      let told = false;
      worker.behaviour = async (request, call) => {
        await new Promise<void>((resolve) => call.signal.addEventListener('abort', () => resolve(), { once: true }));
        told = true;
        return answer(request, { status: 504, billed_tier: null, error: { code: 'CTX0002', detail: 'late' } });
      };
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(response.status).toBe(504);
      expect((await json(response)).code).toBe('CTX0002');
      expect(told).toBe(true);
      expect(await slotsHeld(gw, tenant.tenant_id)).toBe(0);
    } finally {
      await worker.close();
    }
  });
});
