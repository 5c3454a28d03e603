import { Body, Controller, HttpCode, Post, Query } from '@nestjs/common';
import { type WebhookTestResultAnswer, webhookTestBody } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { parseWebhookUrl } from './webhook-url';
import { WebhookTestService } from './webhook-test.service';

/** `POST /v1/webhook/test` (spec-batch-api §4). */
@Controller('v1/webhook/test')
export class WebhookTestController {
  constructor(private readonly tests: WebhookTestService) {}

  /**
   * `{delivered, event_id, status_code, elapsed_ms, error?}`: 200 whatever the receiver answered
   * (`status_code` is `null` when it gave no HTTP answer); the problem statuses are for bad requests.
   */
  @Post()
  @HttpCode(200)
  async send(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<WebhookTestResultAnswer> {
    assertKnownQueryParameters(query, []);
    const request = parseBody(webhookTestBody, body);
    const url = parseWebhookUrl(request.url);
    const result = await this.tests.send(tenant.tenantId, url, request.signature ?? false);
    return {
      delivered: result.delivered,
      event_id: result.eventId,
      status_code: result.statusCode,
      elapsed_ms: result.elapsedMs,
      ...(result.error !== undefined && { error: result.error }),
    };
  }
}
