import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  LIST_PAGE_LIMITS,
  pageQuery,
  queryParameterNames,
  type WebhookDeliveryAnswer,
  type WebhookDeliveryListAnswer,
} from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { DeliveryRecord } from './webhook-deliveries.repository';
import { WebhookDeliveriesService } from './webhook-deliveries.service';

/**
 * `GET /v1/jobs/{job_id}/webhook/deliveries?cursor=&limit=` (spec: "not shown"; decided in
 * docs/decisions/webhooks.md, "Delivery log"): the job's webhook events, newest first, each with every attempt.
 */
@Controller('v1/jobs/:jobId/webhook/deliveries')
export class WebhookDeliveriesController {
  constructor(private readonly deliveries: WebhookDeliveriesService) {}

  @Get()
  async list(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
  ): Promise<WebhookDeliveryListAnswer> {
    assertKnownQueryParameters(query, queryParameterNames(pageQuery));
    const limit = intQueryParameter(query, 'limit', LIST_PAGE_LIMITS);
    const page = await this.deliveries.page(tenant.tenantId, jobId, singleQueryValue(query, 'cursor') || undefined, limit);
    return { deliveries: page.deliveries.map(presentDelivery), next_cursor: page.nextCursor };
  }
}

function presentDelivery(delivery: DeliveryRecord): WebhookDeliveryAnswer {
  return {
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    run_id: delivery.runId,
    url: delivery.url,
    signed: delivery.signed,
    status: delivery.status,
    created_at: delivery.createdAt.toISOString(),
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    finished_at: delivery.finishedAt?.toISOString() ?? null,
    attempts: delivery.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: new Date(attempt.at).toISOString(),
      status_code: attempt.status_code,
      error: attempt.error,
      elapsed_ms: attempt.elapsed_ms,
    })),
  };
}
