import { Inject, Injectable, Optional } from '@nestjs/common';
import { type FetchReplyV1, type FetchRequestV1, workerProblemKind } from '@trawl/contracts';
import { problem, PROBLEM_CONTENT_TYPE } from '@trawl/http';
import type { Logger } from '@trawl/observability';
import { CaptchaError, CaptchaErrorCode } from '../captcha/captcha.errors';
import { ProxyError, ProxyErrorCode } from '../proxies';
import { StealthError } from '../stealth';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { answerBody, type AnswerBody, extractAnswer } from './answer-body';
import type { Recipe } from '@trawl/extraction';
import { NO_RECIPES, type RecipeSource } from './extract-recipes';
import type { TargetPage } from '../target-fetch/fetch-engine';
import { requestedTier } from '../target-fetch/fetch-engine.router';
import { fetchFailureOf } from './fetch-failures';
import { FetchRequestError } from './fetch-request.errors';
import { FetchRequestMetrics } from './fetch-request.metrics';
import type { PageTransforms } from './page-transforms';
import { targetHeaders } from './target-headers';
import { targetCallsOf, TargetFetcher } from '../target-fetch/target-fetcher';
import { judgeTargetStatus } from './target-status';
import { NO_PAGE_COPIES, type PageCopyCache } from '../page-copies';
import type { ChangeReport, ChangeTracker } from '../page-versions';
import { answersJsonObject, versionOf, withChangeTracking } from './change-answers';
import { Tier } from '@trawl/billing';

export const PAGE_TRANSFORMS = Symbol('PAGE_TRANSFORMS');
/** The `RecipeSource` of `extract=auto`. */
export const EXTRACT_RECIPES = Symbol('EXTRACT_RECIPES');
export const FETCH_REQUEST_SETTINGS = Symbol('FETCH_REQUEST_SETTINGS');
/** The `PageCopyCache` of `max_age` requests. */
export const PAGE_COPIES = Symbol('PAGE_COPIES');
/** The `ChangeTracker` of `change_tracking` requests; without one they answer no verdict. */
export const CHANGE_TRACKER = Symbol('CHANGE_TRACKER');

export interface FetchRequestSettings {
  /** The worker's own cap on a target body, in bytes (`MAX_BODY_BYTES`); the tenant's may be lower. */
  maxBodyBytes: number;
  /**
   * How long before `deadline_at` the worker gives up, in ms, so that its `CTX0002` answer reaches
   * the gateway before the gateway gives up itself. Default 250.
   */
  replyMarginMs?: number;
}

/** A whole answer of the Fetch API: the head the gateway reads and the body it sends. */
export interface FetchAnswer {
  head: FetchReplyV1;
  body: Buffer;
}

export interface HandleOptions {
  /**
   * Whether the answer carries the target's `Zr-` headers (default true). Batch results do not keep
   * them, so batch tasks skip building them.
   */
  targetHeaders?: boolean;
}

const INTERNAL_DETAIL =
  'The service could not handle this request. Retry in 10 to 30 seconds; if it keeps failing, quote the instance to support.';

/** Why the work stopped early: the caller left (`CTX0001`) or the deadline passed (`CTX0002`). */
class Stopped extends Error {
  constructor(readonly code: 'CTX0001' | 'CTX0002') {
    super(code === 'CTX0001' ? 'The request was cancelled by the client.' : 'The request exceeded the maximum allowed time.');
  }
}

/**
 * The Fetch API on a worker: `FetchRequestV1` in, the whole answer out (status, content type,
 * `Zr-` headers, body, billed tier). Picks the engine by tier, sends the caller's method, headers
 * and body, gets past a CAPTCHA when the tenant has a solver, judges the target's status, shapes the
 * output and maps every failure to a worker error code with a problem+json body. Never throws.
 */
@Injectable()
export class FetchRequestService {
  private readonly replyMarginMs: number;

  constructor(
    private readonly target: TargetFetcher,
    @Inject(PAGE_TRANSFORMS) private readonly transforms: PageTransforms,
    @Inject(FETCH_REQUEST_SETTINGS) private readonly settings: FetchRequestSettings,
    private readonly metrics: FetchRequestMetrics,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    /** Recipes of `extract=auto` (default: none can be read, `ERR0001`). */
    @Inject(EXTRACT_RECIPES) private readonly recipes: RecipeSource = NO_RECIPES,
    /** Kept copies of `max_age` requests (default: none kept, every request fetched). */
    @Inject(PAGE_COPIES) private readonly copies: Pick<PageCopyCache, 'recall' | 'keep'> = NO_PAGE_COPIES,
    @Optional() @Inject(CHANGE_TRACKER) private readonly changes?: Pick<ChangeTracker, 'track'>,
  ) {
    this.replyMarginMs = settings.replyMarginMs ?? 250;
  }

  /**
   * Serves one request.
   *
   * @param signal aborts when the caller went away: the work stops and the answer is `CTX0001` (free)
   * @param shutdown aborts when the worker stops before the work is done: the answer is then
   *   `ERR0001` (free), which clients retry after 10 to 30 seconds
   */
  async handle(request: FetchRequestV1, signal: AbortSignal, shutdown?: AbortSignal, options: HandleOptions = {}): Promise<FetchAnswer> {
    const started = performance.now();
    this.metrics.inFlight.inc();
    // One controller that the caller, the shutdown and the deadline abort, with the first reason:
    // what `AbortSignal.any` does, without its per-call signal bookkeeping (a hot path for batches).
    const stopper = new AbortController();
    const stop = stopper.signal;
    const onAbort = (event: Event): void => stopper.abort((event.target as AbortSignal).reason);
    let deadlinePassed = false;
    const timeLeft = request.deadline_at - this.replyMarginMs - Date.now();
    const timer = setTimeout(
      () => {
        deadlinePassed = true;
        stopper.abort(new Stopped('CTX0002'));
      },
      Math.max(0, timeLeft),
    );
    for (const source of [signal, shutdown]) {
      if (source === undefined) continue;
      if (source.aborted) stopper.abort(source.reason);
      else source.addEventListener('abort', onAbort, { once: true });
    }
    let answer: FetchAnswer;
    try {
      answer = await this.serve(request, stop, options.targetHeaders ?? true);
    } catch (error) {
      answer = this.failure(request, error, { caller: signal, deadlinePassed, shutdown }, options.targetHeaders ?? true);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      shutdown?.removeEventListener('abort', onAbort);
      this.metrics.inFlight.dec();
    }
    const code = answer.head.error?.code ?? 'ok';
    this.metrics.requests.inc({ code, tier: answer.head.billed_tier ?? 'none' });
    this.metrics.seconds.observe({ code }, (performance.now() - started) / 1000);
    return answer;
  }

  private async serve(request: FetchRequestV1, stop: AbortSignal, withHeaders: boolean): Promise<FetchAnswer> {
    const maxBodyBytes = Math.min(request.max_body_bytes, this.settings.maxBodyBytes);
    const call = targetCallsOf(request, maxBodyBytes, this.replyMarginMs, stop);
    // Read while the page loads; a cached recipe is there at once.
    const extract = request.options.extract;
    const recipe = extract ? this.recipes.get(extract) : undefined;
    recipe?.catch(() => undefined);
    // Checked here so that requests without max_age (nearly all) pay no store call on their way.
    const copying = request.options.max_age !== undefined;
    const copy = copying ? await this.guarded(stop, this.copies.recall(request)) : undefined;
    const page = copy?.page ?? (await this.guarded(stop, this.target.fetch(request, call, stop)));
    if (copying && !copy) await this.copies.keep(request, page);
    const tracking = request.options.change_tracking === true;
    let status: number;
    try {
      status = judgeTargetStatus(page.status, request.options).status;
    } catch (error) {
      // A page gone since the last version is a verdict too (removed), answered with the error.
      throw withPage(error, page, tracking ? await this.trackChange(request, page, undefined, false) : undefined);
    }
    let answer = recipe ? this.extractAnswer(page, await this.guarded(stop, recipe)) : answerBody(page, request.options, this.transforms);
    const change = tracking ? await this.trackChange(request, page, answer, recipe !== undefined) : undefined;
    if (change && answersJsonObject(request.options, recipe !== undefined)) answer = withChangeTracking(answer, change);
    if (answer.body.length > request.max_body_bytes) {
      // With json_response the whole JSON counts (Fetch spec §7 RESP005).
      throw new FetchRequestError('RESP005', 'The response is larger than the maximum download size.');
    }
    return {
      head: {
        v: 1,
        request_id: request.request_id,
        status,
        content_type: answer.contentType,
        headers: withHeaders ? targetHeaders(page.headers, page.finalUrl) : {},
        // A kept copy costs what a basic request costs, whatever fetching it cost (docs/decisions/page-copies.md).
        billed_tier: copy ? Tier.Basic : page.tier,
        target_status: page.status,
        ...(request.options.max_age !== undefined && {
          cache: copy ? { status: 'hit', age_seconds: Math.max(0, Math.floor((Date.now() - copy.fetchedAt) / 1000)) } : { status: 'miss' },
        }),
        ...(change && { change: changeHead(change) }),
        body_bytes: answer.body.length,
      },
      body: answer.body,
    };
  }

  /** The verdict of a `change_tracking` request (undefined when the version store failed, or for an error that says nothing of the content). */
  private async trackChange(
    request: FetchRequestV1,
    page: TargetPage,
    answer: AnswerBody | undefined,
    extracting: boolean,
  ): Promise<ChangeReport | undefined> {
    if (!this.changes) return undefined;
    const version = versionOf(page, answer, extracting, this.transforms);
    // An error answer other than a gone page says nothing about the page's content.
    if (answer === undefined && version.kind !== 'removed') return undefined;
    return this.changes.track(request, version);
  }

  private extractAnswer(page: TargetPage, recipe: Recipe): AnswerBody {
    const applying = this.metrics.extractSeconds.startTimer();
    try {
      return extractAnswer(page, recipe, this.transforms);
    } finally {
      applying();
    }
  }

  /** Settles with `work`, or rejects at once when `stop` aborts (engines abort too, but may lag). */
  private guarded<T>(stop: AbortSignal, work: Promise<T>): Promise<T> {
    if (stop.aborted) return Promise.reject(stop.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => reject(stop.reason as Error);
      stop.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => stop.removeEventListener('abort', onAbort));
    });
  }

  private failure(
    request: FetchRequestV1,
    error: unknown,
    signals: { caller: AbortSignal; deadlinePassed: boolean; shutdown?: AbortSignal },
    withHeaders: boolean,
  ): FetchAnswer {
    const tier = requestedTier(request.options);
    let failure: FetchRequestError;
    // Shutdown first: the RPC server also aborts the caller's signal of calls it gives up on.
    if (signals.shutdown?.aborted) failure = new FetchRequestError('ERR0001', 'The worker shut down before the page was fetched.');
    else if (signals.caller.aborted) failure = new FetchRequestError('CTX0001', new Stopped('CTX0001').message);
    else if (signals.deadlinePassed) failure = new FetchRequestError('CTX0002', new Stopped('CTX0002').message);
    else failure = this.classify(request, error);
    const page = (error as { page?: TargetPage } | null)?.page;
    const change = (error as { change?: ChangeReport } | null)?.change;
    const kind = workerProblemKind(failure.code);
    const internal = failure.code === 'ERR0001';
    const body = problem(kind.status, failure.code, kind.title, internal ? INTERNAL_DETAIL : failure.detail, {
      instance: `urn:trawl:request:${request.request_id}`,
    });
    const log = { code: failure.code, request_id: request.request_id, instance: body.instance, err: error };
    if (signals.shutdown?.aborted) this.logger.warn(log, 'fetch request cancelled by the worker shutting down');
    else if (internal) this.logger.error(log, 'fetch request failed');
    else this.logger.debug(log, 'fetch request answered with an error');
    const bytes = Buffer.from(JSON.stringify(body), 'utf8');
    return {
      head: {
        v: 1,
        request_id: request.request_id,
        status: kind.status,
        content_type: PROBLEM_CONTENT_TYPE,
        headers: page && withHeaders ? targetHeaders(page.headers, page.finalUrl) : {},
        billed_tier: failure.billed ? (page?.tier ?? tier) : null,
        error: { code: failure.code, detail: body.detail },
        target_status: failure.targetStatus ?? page?.status,
        ...(change && { change: changeHead(change) }),
        body_bytes: bytes.length,
      },
      body: bytes,
    };
  }

  private classify(request: FetchRequestV1, error: unknown): FetchRequestError {
    if (error instanceof FetchRequestError) return error;
    if (error instanceof CaptchaError) {
      const code = error.code === CaptchaErrorCode.InvalidKey ? 'REQS006' : 'RESP006';
      return new FetchRequestError(code, error.message, { cause: error });
    }
    if (error instanceof StealthError) {
      // No tier passed the block: nothing succeeded, nothing is billed.
      const detail = `The target blocked every configuration tried (${error.attempts.map((a) => a.tier).join(', ')}).`;
      return new FetchRequestError('REQS002', detail, { cause: error });
    }
    if (error instanceof ProxyError) {
      if (error.code === ProxyErrorCode.UnknownCountry) return new FetchRequestError('REQS004', error.message, { cause: error });
      return new FetchRequestError('RESP001', 'No upstream proxy could be chosen right now; retry later.', { cause: error });
    }
    try {
      return fetchFailureOf(error, request.url);
    } catch {
      return new FetchRequestError('ERR0001', error instanceof Error ? error.message : String(error), { cause: error });
    }
  }
}

/** Keeps the page with a status verdict so the error answer still carries the target's headers and tier. */
function withPage(error: unknown, page: TargetPage, change?: ChangeReport): unknown {
  if (error instanceof FetchRequestError) Object.assign(error, { page, change });
  return error;
}

function changeHead(report: ChangeReport): NonNullable<FetchReplyV1['change']> {
  return {
    status: report.status,
    ...(report.previousFetchedAt !== undefined && { previous_fetched_at: new Date(report.previousFetchedAt).toISOString() }),
  };
}
