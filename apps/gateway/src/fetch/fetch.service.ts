import { Inject, Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { autoTiersOf, ChargeBuffer, creditsOfTier, featuresNeeded, TIER_CREDITS, tierOf } from '@trawl/billing';
import { type FetchOptionsV1, FetchReplyV1, fetchReplyV1, FetchRequestV1, messagingTopology, type PlanFeature } from '@trawl/contracts';
import { registrableDomain } from '@trawl/egress';
import { extractServing } from '@trawl/fetch-params';
import { StreamedRpcClient } from '@trawl/messaging';
import { secondsSince, type Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import type { TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { LimitsService, type Admission, type HeldSlot } from '../limits/limits.service';
import { PreparedDomainsService } from '../extract/prepared-domains.service';
import type { ServedExtractRecipe } from '@trawl/fetch-params';
import type { QueryParameters } from '../problems/query-parameters';
import type { Account } from '../tenants/account';
import { assertAccountMay } from '../tenants/account-standing';
import { AccountsService } from '../tenants/accounts.service';
import { CaptchaSolverKeys } from '../tenants/captcha-solver-keys';
import { FetchError, FetchErrorCode } from './fetch.errors';
import { FetchMetrics } from './fetch.metrics';
import { FetchQuery, parseFetchQuery } from './fetch-query';
import { HeadStarts } from './head-start';
import type { FetchMethod } from './fetch.routes';
import { ForbiddenDomains } from './forbidden-domains';
import { targetHeaders } from './forwarded-headers';
import type { UsageHeaders } from './usage-headers';
import { AbortReason, retryAdvice, workerFailure } from './worker-failure';

/** One Fetch request as the controller hands it over. */
export interface FetchCall {
  tenant: TenantContext;
  method: FetchMethod;
  query: QueryParameters;
  headers: IncomingHttpHeaders;
  /** POST/PUT body, raw. */
  body: Buffer | undefined;
  /** Aborts when the client closes the connection before the answer. */
  clientGone: AbortSignal;
  /** Filled in as the request goes; the controller sends them with every answer. */
  usage: UsageHeaders;
  /** How the request arrived; proxy mode also needs the plan's `proxy_mode` feature. Default `api`. */
  via?: 'api' | 'proxy_mode';
}

/** A worker's reply: its head, and the page body. */
interface WorkerAnswer {
  reply: FetchReplyV1;
  body: Buffer;
}

/** A worker call started before its admission returned ({@link FetchService.startEarly}). */
interface EarlyCall {
  settled: Promise<Settled<WorkerAnswer>>;
  /** Admission refused the request: the worker is told to stop and its answer dropped. */
  callOff(): void;
}

/** The worker's answer, ready to send. */
export interface FetchAnswer {
  status: number;
  contentType: string;
  /** The target's headers, `Zr-` prefixed. */
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * The gateway side of a Fetch request (ARCHITECTURE §2 "Fetch (sync)"): rate window, parameters,
 * forbidden domains, account (plan, subscription, credits), a concurrency slot, then the worker
 * over streamed request/reply; bills the tier the worker names and frees the slot only once the
 * call has settled (a cancelled request keeps its slot until the worker stopped, spec `AUTH006`).
 */
@Injectable()
export class FetchService {
  private readonly subject: string;
  private readonly forbidden: ForbiddenDomains;

  constructor(
    private readonly rpc: StreamedRpcClient,
    private readonly limits: LimitsService,
    private readonly charges: ChargeBuffer,
    private readonly metrics: FetchMetrics,
    private readonly solverKeys: CaptchaSolverKeys,
    private readonly headStarts: HeadStarts,
    private readonly accounts: AccountsService,
    private readonly preparedDomains: PreparedDomainsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.subject = messagingTopology(config.NATS_PREFIX).subjects.fetchRequest;
    this.forbidden = new ForbiddenDomains(config.FETCH_FORBIDDEN_DOMAINS);
  }

  /**
   * @throws LimitError `AUTH008`, `AUTH006`; FetchError `REQS001`, `REQS004`, `REQS007`, `RESP004`,
   *   `RESP009`, `ERR0001`, `CTX0001`, `CTX0002`; AccountError `AUTH004`, `AUTH009`–`AUTH012`.
   */
  async fetch(call: FetchCall): Promise<FetchAnswer> {
    const started = process.hrtime.bigint();
    this.metrics.requested(call.tenant.tenantId);
    try {
      return await this.admitAndCall(call, started);
    } catch (error) {
      // A successful call counts itself, where its code and tier are known.
      const code = (error as { code?: unknown }).code;
      this.metrics.answered(typeof code === 'string' ? code : 'ERR0000', null, secondsSince(started));
      throw error;
    }
  }

  /**
   * Refuses a verb that fetches nothing, with the concurrency headers every answer carries (SDKs
   * pace themselves by them): read, not taken, since a refused verb holds no slot.
   *
   * @throws FetchError `REQS005`, always.
   */
  async refuseMethod(tenantId: string, method: string | undefined, usage: UsageHeaders): Promise<never> {
    const account = await this.accounts.current(tenantId);
    usage.concurrency(account.concurrency, await this.limits.inUse(tenantId, account.concurrency));
    this.metrics.answered(FetchErrorCode.MethodNotAllowed, null, 0);
    throw new FetchError(FetchErrorCode.MethodNotAllowed, `${method ?? 'This method'} does not fetch a page; use GET, POST or PUT.`);
  }

  private async admitAndCall(call: FetchCall, started: bigint): Promise<FetchAnswer> {
    const { tenantId } = call.tenant;
    const parsed = this.parseRequest(call);
    const early = this.startEarly(call, parsed);
    // Read while admission runs: an extract request then waits for neither after the other.
    const recipe = parsed.ok && parsed.value.query.extract ? this.preparedDomains.servedRecipe(parsed.value.query.hostname) : undefined;
    recipe?.catch(() => undefined);
    const admission = await this.admit(tenantId, early?.settled, parsed.ok ? parsed.value.credits : undefined).catch((error: unknown) => {
      early?.callOff();
      throw error;
    });
    let account: Account;
    let held: HeldSlot;
    let query: FetchQuery;
    try {
      ({ account, query } = await this.checkRequest(call, admission, parsed, recipe));
      held = admission.held ?? (await this.limits.acquireSlot(tenantId, account.concurrency));
    } catch (error) {
      const taken = admission.held;
      if (early) {
        early.callOff();
        // The worker may still be at it: the slot admission took waits until it has stopped.
        if (taken) void early.settled.then(() => this.releaseSlot(taken, call));
      } else if (taken) {
        // Refused after all: the slot admission took goes back before the answer does.
        await this.releaseSlot(taken, call);
      }
      throw error;
    }
    if (early) this.metrics.headStarts.inc({ outcome: 'admitted' });
    this.metrics.slotsInUse.inc();
    call.usage.concurrency(account.concurrency, held.inUse);
    const release = async (soon = false) => {
      // The call has settled: the worker is done with the request (or was lost), so is its slot.
      this.metrics.slotsInUse.dec();
      call.usage.concurrency(account.concurrency, held.inUse - 1);
      await this.releaseSlot(held, call, soon ? account.concurrency : undefined);
    };
    const called = early ? await early.settled : await settle(this.callWorker(call, query, account));
    if (!called.ok) {
      await release();
      throw called.error;
    }
    const { reply, body } = called.value;

    const billedTier = reply.billed_tier;
    const credits = billedTier === null ? 0 : (creditsOfTier(billedTier) ?? 0);
    await Promise.all([
      // Nobody waits for a roomy tenant's release: it rides on this replica's next admission.
      mayAnswerBeforeRelease(held.inUse, account.concurrency) ? void release(true) : release(),
      // Buffered with other requests' charges (FETCH_LEDGER_FLUSH_MS): one commit for many rows.
      credits > 0 && billedTier !== null
        ? this.charges.add({
            tenantId,
            credits,
            product: 'fetch',
            tier: billedTier,
            ref: `fetch:${call.usage.requestId}`,
            costUsd: call.usage.costOf(credits),
          })
        : undefined,
    ]);
    call.usage.billed(credits);
    if (billedTier !== null) this.metrics.charged(tenantId, billedTier, credits);
    this.metrics.answered(reply.error?.code ?? 'OK', reply.billed_tier, secondsSince(started));
    return {
      status: reply.status,
      contentType: reply.content_type,
      // A worker's own RESP009 (every browser busy) or ERR0001 gets the same advice as the gateway's.
      headers: {
        ...targetAnswerHeaders(reply.headers),
        ...cacheHeaders(reply.cache),
        ...changeHeaders(reply.change),
        ...retryAdvice(reply.error?.code),
      },
      body,
    };
  }

  /**
   * Admission (rate window, account, a slot) in Postgres or from this replica's allotment of the
   * tenant's limits, timed, and remembered for the tenant's next requests' head starts.
   */
  private async admit(tenantId: string, workerDone: Promise<unknown> | undefined, credits: number | undefined): Promise<Admission> {
    const admitted = process.hrtime.bigint();
    const underWay = this.headStarts.admissionStarted(tenantId);
    try {
      // A request already at its worker may wait a moment (not past its answer) to share the statement.
      const admission = await this.limits.admit(tenantId, { workerDone, credits, pendingCredits: this.charges.pendingCredits(tenantId) });
      // Without a slot from admission, the request takes one next (or is refused): count it.
      underWay.admitted(admission, admission.held?.inUse ?? admission.slotsInUse + 1);
      return admission;
    } finally {
      underWay.end();
      this.metrics.limitsStep.observe({ step: 'admit' }, secondsSince(admitted));
    }
  }

  /**
   * Sends a plain GET to a worker before its admission returns when the tenant's last admission
   * here left it far from its limits ({@link HeadStarts}): the admission's round trip then overlaps
   * the worker's fetch. A request with a body never starts early: the target must not see what
   * might be refused. Anything admission would surely refuse (parameters, forbidden domain,
   * `extract`, plan) does not start either.
   */
  private startEarly(call: FetchCall, parsed: ParsedRequest): EarlyCall | undefined {
    if (call.method !== 'GET' || !parsed.ok) return undefined;
    const { query, forbiddenBy, features, credits } = parsed.value;
    if (query.extract || forbiddenBy !== undefined) return undefined;
    const tenantId = call.tenant.tenantId;
    const account = this.headStarts.startable(tenantId, {
      features,
      credits,
      pendingCredits: this.charges.pendingCredits(tenantId),
      slotsHeldHere: this.limits.slotsHeldHere(tenantId),
    });
    if (!account) return undefined;
    const early: EarlyWorkerCall = {};
    const settled = settle(this.callWorker(call, query, account, early));
    return {
      settled,
      callOff: () => {
        this.metrics.headStarts.inc({ outcome: 'called_off' });
        early.callOff?.();
      },
    };
  }

  /**
   * What is checked between admission and the worker, in the order the errors are answered: rate
   * (`AUTH008`), parameters, forbidden domains (`REQS001`), the account and its plan, `extract`.
   */
  private async checkRequest(
    call: FetchCall,
    admission: Admission,
    parsed: ParsedRequest,
    /** The served recipe of the target's domain, looked up during admission when the request has `extract`. */
    recipe: Promise<ServedExtractRecipe | undefined> | undefined,
  ): Promise<{ account: Account; query: FetchQuery }> {
    // Charges this replica answered but has not written yet count as used (ChargeBuffer's window).
    const account = {
      ...admission.account,
      creditsUsed: admission.account.creditsUsed + this.charges.pendingCredits(call.tenant.tenantId),
    };
    call.usage.concurrency(account.concurrency, admission.slotsInUse);
    this.limits.assertRate(admission);

    if (!parsed.ok) throw parsed.error;
    const { forbiddenBy, features, credits } = parsed.value;
    let { query } = parsed.value;
    if (forbiddenBy !== undefined) {
      throw new FetchError(FetchErrorCode.ForbiddenDomain, `Requests to ${forbiddenBy} are forbidden on this service.`, {
        domain: forbiddenBy,
      });
    }
    assertAccountMay(account, { product: 'fetch', features, credits });
    if (query.extract) {
      // Extract is a product of its own in a plan (AUTH012 without it), billed as the Fetch request.
      assertAccountMay(account, { product: 'extract' });
      query = { ...query, options: await this.extractOptions(query, recipe) };
    }
    return { account, query };
  }

  /**
   * The options an `extract=auto` request is served with (spec §4 rules 2 and 3).
   * @throws FetchError `REQS007` (domain not served), `REQS002` (its pages need rendering).
   */
  private async extractOptions(query: FetchQuery, recipe: Promise<ServedExtractRecipe | undefined> | undefined): Promise<FetchOptionsV1> {
    const domain = registrableDomain(query.hostname);
    const serving = extractServing(query.options, domain, await recipe);
    if ('refusal' in serving) {
      const { code, detail } = serving.refusal;
      throw new FetchError(code === 'REQS007' ? FetchErrorCode.ExtractNotPrepared : FetchErrorCode.ExtractNeedsRender, detail, { domain });
    }
    return serving.options;
  }

  /** The parameters, parsed once, and what the checks before and after admission ask of them. */
  private parseRequest(call: FetchCall): ParsedRequest {
    try {
      const query = parseFetchQuery(call.query);
      const tier = tierOf({ jsRender: query.options.js_render, premiumProxy: query.options.premium_proxy });
      return {
        ok: true,
        value: {
          query,
          forbiddenBy: this.forbidden.match(query.hostname),
          features: featuresOf(query, call.via),
          credits: TIER_CREDITS[tier],
        },
      };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Frees the slot now, or (with the tenant's `limitIfSoon`, for a roomy tenant) keeps it or frees it with a later statement. */
  private async releaseSlot(held: HeldSlot, call: FetchCall, limitIfSoon?: number): Promise<void> {
    const started = process.hrtime.bigint();
    const releasing = limitIfSoon === undefined ? this.limits.release(held.lease) : this.limits.releaseSoon(held, limitIfSoon);
    await releasing.catch((error: unknown) =>
      // Its lease frees it in time.
      this.logger.warn({ err: error, request_id: call.usage.requestId }, 'could not release a concurrency slot'),
    );
    this.metrics.limitsStep.observe({ step: 'release' }, secondsSince(started));
  }

  private async callWorker(
    call: FetchCall,
    query: FetchQuery,
    /** Whose CAPTCHA solver key the worker gets, and the tiers `mode=auto` may use. */
    account: Account,
    /** A call started early: given the means to call it off should admission refuse it (nobody then waits for its answer). */
    early?: EarlyWorkerCall,
  ): Promise<WorkerAnswer> {
    const hasBody = call.method !== 'GET' && call.body !== undefined && call.body.length > 0;
    const captchaSolver = this.solverKeys.open(account);
    const deadlineAt = Date.now() + this.config.FETCH_DEADLINE_MS;
    const request: FetchRequestV1 = {
      v: 1,
      request_id: call.usage.requestId,
      tenant_id: call.tenant.tenantId,
      url: query.url,
      method: call.method,
      headers: targetHeaders(call.headers, { customHeaders: query.customHeaders, hasBody }),
      ...(hasBody && { body_base64: call.body?.toString('base64') }),
      options: query.options,
      deadline_at: deadlineAt,
      max_body_bytes: this.config.FETCH_MAX_BODY_BYTES,
      ...(captchaSolver && { captcha_solver: captchaSolver }),
      ...(query.options.mode === 'auto' && { auto_tiers: autoTiersOf(account.features) }),
    };

    const abort = new AbortController();
    let abortReason: AbortReason | undefined;
    const stop = (reason: AbortReason) => {
      if (abortReason !== undefined) return;
      abortReason = reason;
      abort.abort(reason);
    };
    const onClientGone = () => {
      stop('client_closed');
      // CTX0001: nobody is left to answer; the worker is told and the slot waits for it to stop.
      this.logger.info({ request_id: call.usage.requestId, code: FetchErrorCode.Cancelled }, 'client closed the connection');
    };
    // The worker answers CTX0002 at deadline_at itself; this is for a worker that cannot.
    const deadlineTimer = setTimeout(() => stop('deadline'), deadlineAt + this.config.FETCH_DEADLINE_MARGIN_MS - Date.now());
    if (call.clientGone.aborted) onClientGone();
    else call.clientGone.addEventListener('abort', onClientGone, { once: true });
    // The call's own controller, not one more signal to listen to: each costs the hot path microseconds.
    if (early) early.callOff = () => abort.abort('called_off');
    try {
      const { head, body } = await this.rpc.call(this.subject, Buffer.from(JSON.stringify(request)), {
        signal: abort.signal,
        headers: { 'x-request-id': call.usage.requestId },
        // Only a GET may be asked of a second worker: a worker lost with a POST or PUT answers ERR0001.
        idempotent: call.method === 'GET',
      });
      if (abortReason !== undefined) throw workerFailure(undefined, abortReason);
      return { reply: fetchReplyV1.parse(JSON.parse(Buffer.from(head).toString('utf8'))), body };
    } catch (error) {
      if (error instanceof FetchError) throw error;
      const failure = workerFailure(error, abortReason);
      if (failure.code === FetchErrorCode.WorkerLost) {
        this.logger.error({ err: error, request_id: call.usage.requestId }, 'fetch worker call failed');
      }
      throw failure;
    } finally {
      clearTimeout(deadlineTimer);
      call.clientGone.removeEventListener('abort', onClientGone);
    }
  }
}

/**
 * Whether a request's answer may leave before its slot's release has committed (saving a Postgres
 * round trip of the answer's latency). Only while at most half the tenant's slots were in use when
 * it claimed its own: then the tenant's requests coming straight back, their old slots not yet
 * free, still find free slots (unless its load doubles in that moment). Nearer the limit the answer
 * waits, so that a client at its limit does not get `AUTH006` for a slot it has given back.
 */
function mayAnswerBeforeRelease(inUse: number, limit: number): boolean {
  return inUse * 2 <= limit;
}

/** Features of the plan a request uses (proxy mode is one). */
function featuresOf(query: FetchQuery, via: FetchCall['via']): PlanFeature[] {
  return [...featuresNeeded(query.options), ...(via === 'proxy_mode' ? (['proxy_mode'] as const) : [])];
}

/** Filled by `callWorker` for a call started before its admission returned. */
interface EarlyWorkerCall {
  callOff?: () => void;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise's outcome as a value: a call started early may fail before anyone awaits it, and must not count as unhandled. */
function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/**
 * The Fetch parameters, parsed once, with the forbidden domain they name, the plan features they
 * use and the credits they cost at least; a parameter error is answered after the rate check, as
 * the spec orders them.
 */
type ParsedRequest = Settled<{ query: FetchQuery; forbiddenBy: string | undefined; features: PlanFeature[]; credits: number }>;

/** `X-Trawl-Cache` and, for a kept copy, its `Age` (RFC 9111 §5.1): only for requests with `max_age`. */
function cacheHeaders(cache: FetchReplyV1['cache']): Record<string, string> {
  if (!cache) return {};
  return { 'x-trawl-cache': cache.status, ...(cache.age_seconds !== undefined && { age: String(cache.age_seconds) }) };
}

/** `X-Trawl-Change-Status` and the compared version's fetch time: only for requests with `change_tracking`. */
function changeHeaders(change: FetchReplyV1['change']): Record<string, string> {
  if (!change) return {};
  return {
    'x-trawl-change-status': change.status,
    ...(change.previous_fetched_at !== undefined && { 'x-trawl-previous-fetched-at': change.previous_fetched_at }),
  };
}

/** Only `Zr-` headers of a worker's answer reach the caller: a worker cannot set ours, or cookies on our origin. */
function targetAnswerHeaders(headers: Record<string, string | string[]>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (/^zr-[a-z0-9-]+$/i.test(name)) kept[name.toLowerCase()] = value;
  }
  return kept;
}
