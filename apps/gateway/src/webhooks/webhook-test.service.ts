import { Inject, Injectable } from '@nestjs/common';
import { AttemptResult, testEventBody, WebhookDeliveryClient } from '@trawl/webhooks';
import { SigningKeysService } from './signing-keys.service';
import { WebhookError, WebhookErrorCode } from './webhooks.errors';
import { WEBHOOK_CLOCK, WebhookClock } from './webhooks.tokens';

export interface TestDelivery extends AttemptResult {
  eventId: string;
}

/**
 * `POST /webhook/test` (spec-batch-api §4): one `webhook.test` event, one attempt, sent and signed
 * exactly like a real delivery (same client, same signer), answered synchronously. Not retried and
 * not written to any delivery log: the caller sees the one result.
 */
@Injectable()
export class WebhookTestService {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly client: WebhookDeliveryClient,
    @Inject(WEBHOOK_CLOCK) private readonly clock: WebhookClock,
  ) {}

  /** @throws WebhookError `webhook_signing_requires_active_key` for `signature` without an active key. */
  async send(tenantId: string, url: URL, signature: boolean): Promise<TestDelivery> {
    const signingKey = signature ? await this.keys.activeKey(tenantId) : undefined;
    if (signature && !signingKey) {
      throw new WebhookError(
        WebhookErrorCode.SigningRequiresActiveKey,
        'A signed webhook needs an active signing key: create one with POST /v1/hmac/keys/rotate.',
      );
    }
    const body = testEventBody(this.clock());
    const result = await this.client.send({ url: url.href, eventId: body.event_id, body: JSON.stringify(body), signingKey });
    return { ...result, eventId: body.event_id };
  }
}
