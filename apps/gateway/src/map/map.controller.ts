import { Body, Controller, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mapBody } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { requestIdOf } from '../fetch/request-id';
import { UsageHeaders } from '../fetch/usage-headers';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { MapService } from './map.service';

/** The Map API: `POST /v1/map` answers a site's URLs. Every answer, errors included, carries the usage headers. */
@Controller('v1/map')
export class MapController {
  constructor(
    private readonly maps: MapService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  async map(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const usage = new UsageHeaders(requestIdOf(reply), this.config.FETCH_CREDIT_PRICE_USD);
    const clientGone = new AbortController();
    const onClose = () => {
      if (!reply.sent && !reply.raw.writableEnded) clientGone.abort();
    };
    request.raw.socket.once('close', onClose);
    try {
      assertKnownQueryParameters(query, []);
      const answer = await this.maps.map({
        tenantId: tenant.tenantId,
        body: parseBody(mapBody, body),
        clientGone: clientGone.signal,
        usage,
      });
      await reply
        .status(answer.status)
        .headers({ ...usage.toHeaders(), 'content-type': answer.contentType })
        .send(answer.body);
    } finally {
      request.raw.socket.off('close', onClose);
      // An error leaves through the problem filter, which keeps the headers set on the reply.
      if (!reply.sent) void reply.headers(usage.toHeaders());
    }
  }
}
