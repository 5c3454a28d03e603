import { Inject, Injectable } from '@nestjs/common';
import { ChargeBuffer, UsageMetrics } from '@trawl/billing';
import { mapReplyV1, messagingTopology, type MapReplyV1, type MapRequestV1 } from '@trawl/contracts';
import { MAP_LIMITS, mapCredits, type MapBody } from '@trawl/contracts/http';
import { ForbiddenDomains } from '@trawl/fetch-params';
import { MessagingError, MessagingErrorCode, StreamedRpcClient } from '@trawl/messaging';
import { secondsSince, type Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import type { GatewayConfig } from '../config';
import type { UsageHeaders } from '../fetch/usage-headers';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { LimitsService, type HeldSlot } from '../limits/limits.service';
import { parseSiteUrl, PublicHostCheck } from '../site-urls/site-url';
import { MapError, MapErrorCode } from './map.errors';
import { MapMetrics } from './map.metrics';

/** Token of the streamed request/reply client the Map API calls workers with. */
export const MAP_RPC = Symbol('MAP_RPC');

/** Past the map's own time, how long the gateway still waits for the worker's answer, in ms. */
const ANSWER_MARGIN_MS = 5_000;

/** One map as the controller hands it over. */
export interface MapCall {
  tenantId: string;
  body: MapBody;
  /** Aborts when the client closes the connection before the answer. */
  clientGone: AbortSignal;
  /** Filled in as the map goes; the controller sends them with every answer. */
  usage: UsageHeaders;
}

/** A map's answer, ready to send: the worker's JSON, or its problem. */
export interface MapAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * The gateway side of a map: the URL and forbidden-domain checks, the tenant's rate window and one
 * of its Fetch concurrency slots (a map is a short, synchronous read of a site, like a Fetch
 * request), a worker over streamed request/reply, then the bill: one credit per started 5,000
 * links answered. A map that found nothing is not billed.
 */
@Injectable()
export class MapService {
  private readonly subject: string;
  private readonly forbidden: ForbiddenDomains;

  constructor(
    @Inject(MAP_RPC) private readonly rpc: StreamedRpcClient,
    private readonly hosts: PublicHostCheck,
    private readonly limits: LimitsService,
    private readonly charges: ChargeBuffer,
    private readonly usageMetrics: UsageMetrics,
    private readonly metrics: MapMetrics,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.subject = messagingTopology(config.NATS_PREFIX).subjects.mapRequest;
    this.forbidden = new ForbiddenDomains(config.FETCH_FORBIDDEN_DOMAINS);
  }

  /**
   * @throws MapError `invalid_url`, `forbidden_domain`, `site_unreachable`, `no_capacity`, `map_failed`;
   *   LimitError `AUTH008`, `AUTH006`.
   */
  async map(call: MapCall): Promise<MapAnswer> {
    const started = process.hrtime.bigint();
    try {
      const answer = await this.admitAndMap(call);
      this.metrics.requests.inc({ code: 'OK' });
      this.metrics.duration.observe({ code: 'OK' }, secondsSince(started));
      return answer;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const label = typeof code === 'string' ? code : 'internal_error';
      this.metrics.requests.inc({ code: label });
      this.metrics.duration.observe({ code: label }, secondsSince(started));
      throw error;
    }
  }

  private async admitAndMap(call: MapCall): Promise<MapAnswer> {
    const { tenantId, body } = call;
    const site = parseSiteUrl(body.url, 'The URL');
    if ('problem' in site) throw invalidUrl(site.problem);
    const forbiddenBy = this.forbidden.match(site.url.hostname);
    if (forbiddenBy !== undefined) {
      throw new MapError(MapErrorCode.ForbiddenDomain, `Requests to ${forbiddenBy} are forbidden on this service.`, {
        domain: forbiddenBy,
      });
    }
    if (await this.hosts.isRefused(site.url.hostname)) throw invalidUrl(`The URL's host ${site.url.hostname} is not a public address.`);

    const admission = await this.limits.admit(tenantId);
    call.usage.concurrency(admission.account.concurrency, admission.slotsInUse);
    let held: HeldSlot;
    try {
      this.limits.assertRate(admission);
      held = admission.held ?? (await this.limits.acquireSlot(tenantId, admission.account.concurrency));
    } catch (error) {
      if (admission.held) await this.release(admission.held, call);
      throw error;
    }
    call.usage.concurrency(admission.account.concurrency, held.inUse);
    let reply: MapReplyV1;
    let answer: Buffer;
    try {
      ({ reply, body: answer } = await this.callWorker(call, site.url.href));
    } finally {
      await this.release(held, call);
      call.usage.concurrency(admission.account.concurrency, held.inUse - 1);
    }
    if (reply.error) {
      if (reply.error.code === 'internal_error') throw mapFailed();
      const code = reply.error.code === 'invalid_url' ? MapErrorCode.InvalidUrl : MapErrorCode.SiteUnreachable;
      throw new MapError(code, reply.error.detail);
    }
    const credits = mapCredits(reply.links);
    await this.charges.add({
      tenantId,
      credits,
      product: 'map',
      tier: 'map',
      ref: `map:${call.usage.requestId}`,
      costUsd: call.usage.costOf(credits),
    });
    call.usage.billed(credits);
    this.usageMetrics.requested(tenantId, 'map');
    this.usageMetrics.billed([{ tenantId, credits, product: 'map', tier: 'map' }]);
    this.metrics.links.inc(reply.links);
    return { status: 200, contentType: 'application/json; charset=utf-8', body: answer };
  }

  private async callWorker(call: MapCall, url: string): Promise<{ reply: MapReplyV1; body: Buffer }> {
    const timeoutMs = call.body.timeout_ms ?? MAP_LIMITS.defaultTimeoutMs;
    const request: MapRequestV1 = {
      v: 1,
      request_id: call.usage.requestId,
      tenant_id: call.tenantId,
      url,
      ...(call.body.search !== undefined && { search: call.body.search }),
      limit: call.body.limit ?? MAP_LIMITS.defaultLimit,
      include_subdomains: call.body.include_subdomains,
      sitemap: call.body.sitemap,
      timeout_ms: timeoutMs,
    };
    // The worker answers by its deadline with what it found; this is for a worker that cannot.
    const signal = AbortSignal.any([call.clientGone, AbortSignal.timeout(timeoutMs + ANSWER_MARGIN_MS)]);
    try {
      const { head, body } = await this.rpc.call(this.subject, Buffer.from(JSON.stringify(request)), {
        signal,
        headers: { 'x-request-id': call.usage.requestId },
      });
      return { reply: mapReplyV1.parse(JSON.parse(Buffer.from(head).toString('utf8'))), body };
    } catch (error) {
      const code = error instanceof MessagingError ? error.code : undefined;
      if (code === MessagingErrorCode.RpcBusy || code === MessagingErrorCode.RpcNoResponders) {
        throw new MapError(MapErrorCode.NoCapacity, 'Every worker is busy; retry in a few seconds.', {}, { 'retry-after': '5' });
      }
      if (!call.clientGone.aborted) this.logger.error({ err: error, request_id: call.usage.requestId }, 'map worker call failed');
      throw mapFailed();
    }
  }

  private async release(held: HeldSlot, call: MapCall): Promise<void> {
    await this.limits.release(held.lease).catch((error: unknown) =>
      // Its lease frees it in time.
      this.logger.warn({ err: error, request_id: call.usage.requestId }, 'could not release a concurrency slot'),
    );
  }
}

function invalidUrl(detail: string): MapError {
  return new MapError(MapErrorCode.InvalidUrl, `${detail} Send a public http or https URL.`);
}

function mapFailed(): MapError {
  return new MapError(MapErrorCode.MapFailed, 'The map failed inside the service; retry in 10 to 30 seconds.', {}, { 'retry-after': '15' });
}
