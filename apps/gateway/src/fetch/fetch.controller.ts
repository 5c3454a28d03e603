import { All, Body, Controller, Inject, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { QueryParameters } from '../problems/query-parameters';
import { isFetchMethod } from './fetch.routes';
import { FetchService } from './fetch.service';
import { requestIdOf } from './request-id';
import { UsageHeaders } from './usage-headers';

/**
 * The Fetch endpoint (spec-extract-fetch §4): `GET|POST|PUT /v1/` (and `/v1`), every option in
 * the query, the key in `apikey` (or `X-API-Key`). Every answer, errors included, carries the
 * usage headers.
 */
@Controller()
export class FetchController {
  constructor(
    private readonly fetcher: FetchService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  // Nest strips the trailing slash: `/v1/` is added beside `/v1` by `mirrorFetchRoute`.
  @All('v1')
  async fetch(
    @AuthenticatedTenant() tenant: TenantContext,
    @Query() query: QueryParameters,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const usage = new UsageHeaders(requestIdOf(reply), this.config.FETCH_CREDIT_PRICE_USD);
    // Scraped pages served from the API's origin: no script runs, no sniffing.
    void reply.headers({ 'x-content-type-options': 'nosniff', 'content-security-policy': 'sandbox' });
    const clientGone = new AbortController();
    const onClose = () => {
      if (!reply.sent && !reply.raw.writableEnded) clientGone.abort();
    };
    request.raw.socket.once('close', onClose);
    try {
      if (!isFetchMethod(request.method)) return await this.fetcher.refuseMethod(tenant.tenantId, request.method, usage);
      const answer = await this.fetcher.fetch({
        tenant,
        method: request.method,
        query,
        headers: request.headers,
        body: rawBody(body),
        clientGone: clientGone.signal,
        usage,
      });
      request.answeredFromTarget = true;
      await reply
        .status(answer.status)
        .headers({ ...answer.headers, ...usage.toHeaders(), 'content-type': answer.contentType })
        .send(answer.body);
    } finally {
      request.raw.socket.off('close', onClose);
      // An error leaves through the problem filter, which keeps the headers set on the reply.
      if (!reply.sent) void reply.headers(usage.toHeaders());
    }
  }
}

/** The body as the gateway's parsers give it for this route: its bytes. */
function rawBody(body: unknown): Buffer | undefined {
  return Buffer.isBuffer(body) ? body : undefined;
}
