import { Inject, Injectable } from '@nestjs/common';
import { messagingTopology } from '@trawl/contracts';
import { EXTRACT_LIMITS, type PrepareDomainBody } from '@trawl/contracts/http';
import { decodeCursorToken, encodeCursorToken } from '@trawl/http';
import { registrableDomain } from '@trawl/egress';
import type { Logger } from '@trawl/observability';
import type { ServedExtractRecipe } from '@trawl/fetch-params';
import type { Sql } from '@trawl/persistence';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { TtlLruCache } from '../auth/ttl-lru-cache';
import type { GatewayConfig } from '../config';
import { FetchError, FetchErrorCode } from '../fetch/fetch.errors';
import { ForbiddenDomains } from '../fetch/forbidden-domains';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { ExtractError, ExtractErrorCode } from './extract.errors';
import { parsePreparationAsk, type PreparationAsk } from './prepared-domain-input';
import { type PreparedDomainRecord, PreparedDomainsRepository } from './prepared-domains.repository';

/** If no preparer took a queued domain by then, the scheduler's sweep sends its message again. */
const REQUEUE_AFTER_MS = 60_000;
/** How long a replica trusts what it read of a domain for `extract=auto`: a new recipe is served within this. */
const SERVED_CACHE_MS = 5_000;
/** An unprepared domain is read again sooner: the caller is probably polling for it to be ready. */
const UNSERVED_CACHE_MS = 1_000;

/** What an ask did: `created` when it queued a new preparation (and counted against the allowance). */
export interface AskOutcome {
  record: PreparedDomainRecord;
  created: boolean;
}

/**
 * Prepared domains (spec-extract-fetch §2–§4): asking for one, reading it, listing the served
 * ones, and which recipe serves a Fetch request or batch task. Domains are shared by every tenant;
 * only a new preparation counts against the tenant that asked for it.
 */
@Injectable()
export class PreparedDomainsService {
  private readonly subject: string;
  private readonly served = new TtlLruCache<string, ServedExtractRecipe>({ ttlMs: SERVED_CACHE_MS, maxEntries: 10_000 });
  private readonly unserved = new TtlLruCache<string, null>({ ttlMs: UNSERVED_CACHE_MS, maxEntries: 10_000 });
  private readonly forbidden: ForbiddenDomains;

  constructor(
    private readonly repository: PreparedDomainsRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.subject = messagingTopology(config.NATS_PREFIX).subjects.extractPreparation;
    this.forbidden = new ForbiddenDomains(config.FETCH_FORBIDDEN_DOMAINS);
  }

  /**
   * Asks for a domain's preparation. A domain queued, preparing or ready is not prepared twice:
   * the answer is its record (a queued one takes the new example URLs too). A new domain, or one
   * whose preparation failed, starts an attempt, if the tenant's allowance for the billing period
   * has room.
   * @throws ExtractError `invalid_domain`, `invalid_example_url`, `extract_domain_quota_exceeded`;
   *   FetchError `REQS001` for a forbidden domain.
   */
  async ask(tenantId: string, body: PrepareDomainBody): Promise<AskOutcome> {
    const ask = parsePreparationAsk(body.domain, body.example_urls);
    const forbiddenBy = this.forbidden.match(ask.hostname);
    if (forbiddenBy !== undefined) {
      throw new FetchError(FetchErrorCode.ForbiddenDomain, `Requests to ${forbiddenBy} are forbidden on this service.`, {
        domain: forbiddenBy,
      });
    }
    const outcome = await this.repository.transaction(async (sql) => {
      const allowance = await this.repository.lockAllowance(sql, tenantId);
      if (!allowance) throw new Error(`tenant ${tenantId} vanished while asking for a domain`);
      const existing = await this.repository.lockDomain(sql, ask.domain);
      if (existing && existing.status !== 'failed') {
        const record =
          existing.status === 'queued' && ask.exampleUrls.length > 0
            ? await this.repository.addExamples(sql, ask.domain, ask.exampleUrls, EXTRACT_LIMITS.maxExampleUrls)
            : existing;
        return { record, created: false };
      }
      const asked = await this.repository.countAsks(sql, tenantId, allowance.periodStartedAt);
      if (asked >= allowance.perPeriod) {
        throw new ExtractError(
          ExtractErrorCode.DomainQuotaExceeded,
          `This account may ask for ${allowance.perPeriod} new ${allowance.perPeriod === 1 ? 'domain' : 'domains'} per billing period and has asked for ${asked}; ` +
            `the allowance renews at ${allowance.periodEndsAt.toISOString()}. Domains already prepared can be used at once.`,
          { limit: allowance.perPeriod, period_ends_at: allowance.periodEndsAt.toISOString() },
        );
      }
      await this.repository.recordAsk(sql, tenantId, ask.domain);
      return this.queueAttempt(sql, ask);
    });
    if (outcome.created) {
      this.logger.info({ tenant_id: tenantId, domain: ask.domain, attempt: outcome.record.attempt }, 'extract preparation queued');
    }
    return outcome;
  }

  /**
   * Prepares a domain again (the admin API): a new attempt, which keeps the served recipe's field
   * names and serves the old recipe until it is ready. A domain queued or preparing is left as it is.
   * @throws ExtractError `prepared_domain_not_found`, `invalid_example_url`.
   */
  async prepareAgain(domainInput: string, exampleUrls: string[]): Promise<AskOutcome> {
    const ask = parsePreparationAsk(domainInput, exampleUrls);
    return this.repository.transaction(async (sql) => {
      const existing = await this.repository.lockDomain(sql, ask.domain);
      if (!existing) throw notFound(ask.domain);
      if (existing.status === 'queued' || existing.status === 'preparing') return { record: existing, created: false };
      return this.queueAttempt(sql, ask);
    });
  }

  private async queueAttempt(sql: Sql, ask: PreparationAsk): Promise<AskOutcome> {
    const record = await this.repository.queueAttempt(sql, {
      domain: ask.domain,
      exampleUrls: ask.exampleUrls,
      requeueAfterMs: REQUEUE_AFTER_MS,
      subject: this.subject,
    });
    return { record, created: true };
  }

  /** @throws ExtractError `prepared_domain_not_found` (also for a name that is not a domain). */
  async read(domainInput: string): Promise<PreparedDomainRecord> {
    const domain = registrableDomain(domainInput.trim().replace(/\.+$/, ''));
    const record = await this.repository.find(domain);
    if (!record) throw notFound(domain);
    return record;
  }

  /** @throws ExtractError `extract_invalid_cursor`. */
  async list(cursor: string | undefined, limit: number): Promise<{ domains: PreparedDomainRecord[]; nextCursor?: string }> {
    const after = decodeDomainCursor(cursor);
    const rows = await this.repository.listServed(after, limit + 1);
    const domains = rows.slice(0, limit);
    return {
      domains,
      ...(rows.length > limit && { nextCursor: encodeCursorToken({ k: 'extract_domains', d: domains[domains.length - 1].domain }) }),
    };
  }

  /** The recipe that serves `hostname` now, or undefined when its domain is not served. Cached a few seconds per replica. */
  async servedRecipe(hostname: string): Promise<ServedExtractRecipe | undefined> {
    const domain = registrableDomain(hostname);
    const cached = this.served.get(domain);
    if (cached) return cached;
    if (this.unserved.get(domain) === null) return undefined;
    const recipe = await this.repository.servedRecipe(domain);
    if (recipe) this.served.set(domain, recipe);
    else this.unserved.set(domain, null);
    return recipe;
  }
}

function notFound(domain: string): ExtractError {
  return new ExtractError(
    ExtractErrorCode.PreparedDomainNotFound,
    `No preparation was asked for ${domain}. Ask for one with POST /v1/extract/prepared-domains.`,
  );
}

function decodeDomainCursor(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const data = decodeCursorToken(token);
  if (data?.k !== 'extract_domains' || typeof data.d !== 'string' || data.d.length === 0 || data.d.length > 253) {
    throw new ExtractError(ExtractErrorCode.InvalidCursor, '`cursor` is not a cursor this list gave; start without one.', {
      parameter: 'cursor',
    });
  }
  return data.d;
}
