import { Registry } from 'prom-client';
import { ChargeBuffer, UsageMetrics } from '@trawl/billing';
import type { FetchReplyV1, FetchRequestV1 } from '@trawl/contracts';
import { MessagingError, MessagingErrorCode, StreamedRpcClient } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import type { Database } from '@trawl/persistence';
import { loadGatewayConfig } from '../config';
import type { ServedExtractRecipe } from '@trawl/fetch-params';
import type { PreparedDomainsService } from '../extract/prepared-domains.service';
import type { AdmissionSnapshot } from '../limits/admission.repository';
import { LimitError, LimitErrorCode } from '../limits/limits.errors';
import type { LimitsService } from '../limits/limits.service';
import type { Account } from '../tenants/account';
import { testAccount } from '../tenants/account.test-support';
import type { AccountsService } from '../tenants/accounts.service';
import { CaptchaSolverKeys } from '../tenants/captcha-solver-keys';
import { FetchMetrics } from './fetch.metrics';
import { FetchCall, FetchService } from './fetch.service';
import { HeadStarts } from './head-start';
import { UsageHeaders } from './usage-headers';

function fetchMetrics(): FetchMetrics {
  const registry = new Registry();
  return new FetchMetrics(registry, new UsageMetrics(registry));
}

const TENANT = '3f0c2a5e-8d1b-4c7e-9a6f-1b2c3d4e5f60';

function account(fields: Partial<Account> = {}): Account {
  return testAccount({ tenantId: TENANT, ...fields });
}

function setup(options: { account?: Account; reply?: Partial<FetchReplyV1>; failure?: Error; servedRecipe?: ServedExtractRecipe } = {}) {
  const sent: FetchRequestV1[] = [];
  const rpc = {
    call: jest.fn(async (_subject: string, payload: Uint8Array, _options?: { signal?: AbortSignal }) => {
      const request = JSON.parse(Buffer.from(payload).toString()) as FetchRequestV1;
      sent.push(request);
      if (options.failure) throw options.failure;
      const head: FetchReplyV1 = {
        v: 1,
        request_id: request.request_id,
        status: 200,
        content_type: 'text/html',
        headers: { 'Zr-Final-Url': request.url, 'Set-Cookie': 'x=1', 'Content-Length': '1' },
        billed_tier: 'basic',
        body_bytes: 2,
        ...options.reply,
      };
      return { head: Buffer.from(JSON.stringify(head)), body: Buffer.from('ok') };
    }),
  };
  const snapshot: AdmissionSnapshot = {
    account: options.account ?? account(),
    requestsThisMinute: 1,
    windowResetsInMs: 1_000,
    slotsInUse: 1,
  };
  const limits = {
    admit: jest.fn(async () => snapshot),
    assertRate: jest.fn(),
    acquireSlot: jest.fn(async () => ({ lease: { tenantId: TENANT, slot: 1, holder: 'h' }, inUse: 2 })),
    release: jest.fn(async () => undefined),
    releaseSoon: jest.fn(async () => undefined),
    slotsHeldHere: jest.fn(() => 0),
  };
  const db = { query: jest.fn(), prepared: jest.fn(async () => [{ tenant_id: TENANT, credits: '1' }]) };
  const config = loadGatewayConfig({ ADMIN_TOKEN: 'x'.repeat(16), FETCH_CREDIT_PRICE_USD: '0.5' });
  const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };
  const service = new FetchService(
    rpc as unknown as StreamedRpcClient,
    limits as unknown as LimitsService,
    // Unbuffered: the charge is written before the answer, where the test can see it.
    new ChargeBuffer(db as unknown as Database, { flushMs: 0 }),
    fetchMetrics(),
    new CaptchaSolverKeys(config, logger as unknown as Logger),
    new HeadStarts({ maxAgeMs: 2_000, maxTenants: 10 }),
    { current: jest.fn(async () => options.account ?? account()) } as unknown as AccountsService,
    { servedRecipe: jest.fn(async () => options.servedRecipe) } as unknown as PreparedDomainsService,
    config,
    logger as unknown as Logger,
  );
  const call = (fields: Partial<FetchCall> = {}): FetchCall => ({
    tenant: { tenantId: TENANT, keyId: 'k' },
    method: 'GET',
    query: { url: 'https://shop.test/' },
    headers: {},
    body: undefined,
    clientGone: new AbortController().signal,
    usage: new UsageHeaders('req-1', config.FETCH_CREDIT_PRICE_USD),
    ...fields,
  });
  return { service, call, sent, limits, db, rpc };
}

/** A promise the test settles itself. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe(FetchService.name, () => {
  describe('head start', () => {
    // Far from its limits: 1 slot of 10 in use, 1 request of 100 this minute, 100 credits.
    const roomy = () => setup({ account: account({ concurrency: 10 }) });

    it("sends a tenant's next GET to the worker while its admission is under way, and answers once admitted", async () => {
      const { service, call, limits, rpc } = roomy();
      await service.fetch(call());
      const admission = deferred<AdmissionSnapshot>();
      limits.admit.mockImplementationOnce(() => admission.promise);
      const answering = service.fetch(call());
      expect(rpc.call).toHaveBeenCalledTimes(2);
      // Only the request already at its worker may wait to share its admission statement.
      const calls = limits.admit.mock.calls as unknown as Array<[string, { workerDone?: Promise<unknown> }]>;
      expect(calls.map(([, options]) => options.workerDone instanceof Promise)).toEqual([false, true]);
      admission.resolve({ account: account({ concurrency: 10 }), requestsThisMinute: 2, windowResetsInMs: 1_000, slotsInUse: 1 });
      await expect(answering).resolves.toMatchObject({ status: 200, body: Buffer.from('ok') });
      // Roomy: both releases wait to ride on a next admission.
      expect(limits.releaseSoon).toHaveBeenCalledTimes(2);
      expect(limits.release).not.toHaveBeenCalled();
    });

    it('calls the worker off and answers the refusal, unbilled, when admission refuses a request that started early', async () => {
      const { service, call, limits, rpc, db } = roomy();
      await service.fetch(call());
      db.prepared.mockClear();
      limits.assertRate.mockImplementationOnce(() => {
        throw new LimitError(LimitErrorCode.RateLimited, 'over', { 'retry-after': '1' });
      });
      // The worker is still fetching when admission refuses: it must be told to stop.
      let calledOff = false;
      rpc.call.mockImplementationOnce(
        (_subject: string, _payload: Uint8Array, options?: { signal?: AbortSignal }) =>
          new Promise((_resolve, reject) =>
            options?.signal?.addEventListener('abort', () => {
              calledOff = true;
              reject(new MessagingError(MessagingErrorCode.RpcCancelled, 'cancelled'));
            }),
          ),
      );
      await expect(service.fetch(call())).rejects.toMatchObject({ code: 'AUTH008' });
      expect(rpc.call).toHaveBeenCalledTimes(2);
      expect(calledOff).toBe(true);
      expect(limits.releaseSoon).toHaveBeenCalledTimes(1); // the first request's; the refused one held none
      expect(db.prepared).not.toHaveBeenCalled();
    });

    it('waits for admission on the first request of a tenant, for a request with a body, and near the limits', async () => {
      const { service, call, limits, rpc } = roomy();
      const waitsForAdmission = async (fetchCall: FetchCall) => {
        const admission = deferred<AdmissionSnapshot>();
        limits.admit.mockImplementationOnce(() => admission.promise);
        const calls = rpc.call.mock.calls.length;
        const answering = service.fetch(fetchCall);
        const early = rpc.call.mock.calls.length > calls;
        admission.resolve({ account: account({ concurrency: 10 }), requestsThisMinute: 1, windowResetsInMs: 1_000, slotsInUse: 4 });
        await answering;
        return !early;
      };
      expect(await waitsForAdmission(call())).toBe(true);
      // The last admission showed 4 of 10 slots held, 5 with its own: one more passes half.
      expect(await waitsForAdmission(call())).toBe(true);
      limits.admit.mockImplementationOnce(async () => ({
        account: account({ concurrency: 10 }),
        requestsThisMinute: 1,
        windowResetsInMs: 1_000,
        slotsInUse: 0,
      }));
      await service.fetch(call());
      expect(await waitsForAdmission(call({ method: 'POST', body: Buffer.from('a=1') }))).toBe(true);
    });
  });

  describe('fetch', () => {
    it('answers with the worker page, keeps only Zr- headers, bills and frees the slot', async () => {
      const { service, call, limits, db } = setup();
      const usage = new UsageHeaders('req-1', 0.5);
      const answer = await service.fetch(call({ usage }));
      expect(answer).toEqual({
        status: 200,
        contentType: 'text/html',
        headers: { 'zr-final-url': 'https://shop.test/' },
        body: Buffer.from('ok'),
      });
      expect(limits.release).toHaveBeenCalledWith({ tenantId: TENANT, slot: 1, holder: 'h' });
      expect(db.prepared).toHaveBeenCalledWith('credit_ledger_record', expect.stringContaining('credit_ledger'), [
        [TENANT],
        [1],
        ['fetch'],
        ['basic'],
        ['fetch:req-1'],
        ['0.50000000'],
      ]);
      expect(usage.toHeaders()).toMatchObject({ 'x-request-credits': '1', 'x-request-cost': '0.5', 'concurrency-remaining': '2' });
    });

    it('passes retry advice with a worker RESP009 answer (every browser busy), billed nothing', async () => {
      const { service, call, db } = setup({
        reply: { billed_tier: null, status: 503, content_type: 'application/problem+json', error: { code: 'RESP009', detail: 'busy' } },
      });
      const answer = await service.fetch(call());
      expect(answer.status).toBe(503);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers['retry-after'])).toBeLessThanOrEqual(5);
      expect(db.prepared).not.toHaveBeenCalled();
    });

    it('gives no retry advice with a final worker error', async () => {
      const { service, call } = setup({ reply: { billed_tier: null, status: 404, error: { code: 'RESP002', detail: 'gone' } } });
      expect((await service.fetch(call())).headers['retry-after']).toBeUndefined();
    });

    it('bills nothing for a free answer', async () => {
      const { service, call, db } = setup({ reply: { billed_tier: null, status: 422 } });
      await service.fetch(call());
      expect(db.prepared).not.toHaveBeenCalled();
    });

    it('frees the slot and answers RESP009 when no worker serves', async () => {
      const { service, call, limits } = setup({ failure: new MessagingError(MessagingErrorCode.RpcNoResponders, 'none') });
      await expect(service.fetch(call())).rejects.toMatchObject({ code: 'RESP009' });
      expect(limits.release).toHaveBeenCalledTimes(1);
    });

    it('refuses a proxied request when the plan lacks proxy_mode, before any slot is taken', async () => {
      const { service, call, limits, rpc } = setup();
      await expect(service.fetch(call({ via: 'proxy_mode' }))).rejects.toMatchObject({ code: 'AUTH010' });
      expect(limits.acquireSlot).not.toHaveBeenCalled();
      expect(rpc.call).not.toHaveBeenCalled();
    });

    it("lets mode=auto escalate only within the plan: no AUTH010, the plan's tiers sent to the worker", async () => {
      const { service, call, sent } = setup({ account: account({ features: ['js_render'] }) });
      await service.fetch(call({ query: { url: 'https://shop.test/', mode: 'auto' } }));
      expect(sent[0].auto_tiers).toEqual(['basic', 'js_render']);
      // A plain request tells the worker nothing of the plan.
      await service.fetch(call());
      expect(sent[1].auto_tiers).toBeUndefined();
    });

    it('refuses mode=auto with a proxy country when the plan lacks premium_proxy (only the premium pool has countries)', async () => {
      const { service, call, rpc } = setup({ account: account({ features: ['js_render'] }) });
      await expect(service.fetch(call({ query: { url: 'https://shop.test/', mode: 'auto', proxy_country: 'de' } }))).rejects.toMatchObject({
        code: 'AUTH010',
      });
      expect(rpc.call).not.toHaveBeenCalled();
    });

    it('answers REQS007 naming the registrable domain when Extract does not serve it, before any slot is taken', async () => {
      const { service, call, rpc, limits } = setup({ account: account({ products: ['fetch', 'extract'] }) });
      await expect(service.fetch(call({ query: { url: 'https://www.shop.test/p/1', extract: 'auto' } }))).rejects.toMatchObject({
        code: 'REQS007',
        extensions: { domain: 'shop.test' },
      });
      expect(rpc.call).not.toHaveBeenCalled();
      expect(limits.acquireSlot).not.toHaveBeenCalled();
    });

    it('sends the served recipe and drops the other output formats with extract=auto (and autoparse)', async () => {
      const { service, call, sent } = setup({
        account: account({ products: ['fetch', 'extract'] }),
        servedRecipe: { domain: 'shop.test', version: 3, needsRender: false },
      });
      await service.fetch(
        call({ query: { url: 'https://shop.test/p/1', extract: 'auto', css_extractor: '{"t":"h1"}', json_response: 'true' } }),
      );
      await service.fetch(call({ query: { url: 'https://shop.test/p/2', autoparse: 'true', outputs: 'links' } }));
      for (const request of sent) {
        expect(request.options.extract).toEqual({ domain: 'shop.test', version: 3 });
        expect(request.options).not.toHaveProperty('css_extractor');
        expect(request.options).not.toHaveProperty('outputs');
        expect(request.options.json_response).toBe(false);
      }
    });

    it('answers AUTH012 to extract=auto when the plan lacks the extract product', async () => {
      const { service, call, rpc } = setup({
        account: account({ products: ['fetch', 'crawl', 'batch'] }),
        servedRecipe: { domain: 'shop.test', version: 1, needsRender: false },
      });
      await expect(service.fetch(call({ query: { url: 'https://shop.test/p/1', extract: 'auto' } }))).rejects.toMatchObject({
        code: 'AUTH012',
      });
      expect(rpc.call).not.toHaveBeenCalled();
    });

    it('answers REQS002 when the domain needs rendering and the request has no js_render', async () => {
      const { service, call, rpc, sent } = setup({
        account: account({ products: ['fetch', 'extract'], features: ['js_render'] }),
        servedRecipe: { domain: 'shop.test', version: 1, needsRender: true },
      });
      await expect(service.fetch(call({ query: { url: 'https://shop.test/p/1', extract: 'auto' } }))).rejects.toMatchObject({
        code: 'REQS002',
      });
      expect(rpc.call).not.toHaveBeenCalled();
      await service.fetch(call({ query: { url: 'https://shop.test/p/1', extract: 'auto', js_render: 'true' } }));
      expect(sent[0].options).toMatchObject({ js_render: true, wait: 1_000, extract: { domain: 'shop.test', version: 1 } });
      // The caller's own wait stands.
      await service.fetch(call({ query: { url: 'https://shop.test/p/1', extract: 'auto', js_render: 'true', wait: '300' } }));
      expect(sent[1].options.wait).toBe(300);
    });

    it('sends the tenant CAPTCHA solver and the body of a POST', async () => {
      const { service, call, sent } = setup({
        account: account({ captchaSolver: { endpoint: 'http://s.test/', key: { sealed: null, plaintext: 'k' } } }),
      });
      await service.fetch(call({ method: 'POST', body: Buffer.from('a=1') }));
      expect(sent[0]).toMatchObject({
        captcha_solver: { endpoint: 'http://s.test/', key: 'k' },
        body_base64: Buffer.from('a=1').toString('base64'),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    });

    it('answers CTX0001 without calling the worker when the client left before the call', async () => {
      const { service, call, rpc, limits } = setup();
      const gone = new AbortController();
      gone.abort();
      rpc.call.mockImplementationOnce(async () => {
        throw new MessagingError(MessagingErrorCode.RpcCancelled, 'cancelled before it was sent');
      });
      await expect(service.fetch(call({ clientGone: gone.signal }))).rejects.toMatchObject({ code: 'CTX0001' });
      expect(limits.release).toHaveBeenCalledTimes(1);
    });
  });
});
