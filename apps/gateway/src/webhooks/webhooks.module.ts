import { Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { EgressPolicy } from '@trawl/egress';
import { SigningKeysRepository, WebhookDeliveryClient } from '@trawl/webhooks';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { SigningKeysController } from './signing-keys.controller';
import { SigningKeysService } from './signing-keys.service';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookTestController } from './webhook-test.controller';
import { WebhookTestService } from './webhook-test.service';
import { SECRET_BOX, WEBHOOK_CLOCK, WebhookClock } from './webhooks.tokens';

/** Closes the test client's sockets when the gateway stops. */
@Injectable()
class DeliveryClientCloser implements OnApplicationShutdown {
  constructor(private readonly client: WebhookDeliveryClient) {}
  async onApplicationShutdown(): Promise<void> {
    await this.client.close();
  }
}

/** Signing keys, `POST /v1/webhook/test` and the delivery log (spec-batch-api §4–§6). */
@Module({
  controllers: [SigningKeysController, WebhookTestController, WebhookDeliveriesController],
  providers: [
    SigningKeysService,
    WebhookTestService,
    WebhookDeliveriesService,
    WebhookDeliveriesRepository,
    DeliveryClientCloser,
    { provide: SigningKeysRepository, useValue: new SigningKeysRepository() },
    { provide: SECRET_BOX, inject: [GATEWAY_CONFIG], useFactory: (config: GatewayConfig) => config.SECRETS_KEY },
    { provide: WEBHOOK_CLOCK, useValue: (() => new Date()) satisfies WebhookClock },
    {
      provide: WebhookDeliveryClient,
      inject: [EgressPolicy, GATEWAY_CONFIG],
      useFactory: (policy: EgressPolicy, config: GatewayConfig) =>
        new WebhookDeliveryClient({ policy, timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS }),
    },
  ],
  // The Batch API validates job webhooks with the same rules and keys.
  exports: [SigningKeysService],
})
export class WebhooksModule {}
