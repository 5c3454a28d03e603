import { Module } from '@nestjs/common';
import { UsageMetrics } from '@trawl/billing';
import { MessagingConnection, StreamedRpcClient } from '@trawl/messaging';
import { SERVICE_MESSAGING } from '@trawl/service-kit';
import { Registry } from 'prom-client';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { ExtractModule } from '../extract/extract.module';
import { LimitsModule } from '../limits/limits.module';
import { TenantsModule } from '../tenants/tenants.module';
import { FetchController } from './fetch.controller';
import { FetchMetrics } from './fetch.metrics';
import { FetchService } from './fetch.service';
import { HeadStarts } from './head-start';
import { workerRpcClient } from './worker-rpc';

@Module({
  imports: [LimitsModule, TenantsModule, ExtractModule],
  controllers: [FetchController],
  providers: [
    FetchService,
    {
      provide: StreamedRpcClient,
      inject: [SERVICE_MESSAGING, GATEWAY_CONFIG, FetchMetrics],
      useFactory: (messaging: MessagingConnection, config: GatewayConfig, metrics: FetchMetrics) =>
        workerRpcClient(messaging, config, (reason) => metrics.workersNotTaking.inc({ reason })),
    },
    {
      provide: HeadStarts,
      inject: [GATEWAY_CONFIG],
      useFactory: (config: GatewayConfig) =>
        new HeadStarts({ maxAgeMs: config.FETCH_HEAD_START_MS, maxTenants: config.API_KEY_CACHE_MAX_ENTRIES }),
    },
    {
      provide: FetchMetrics,
      inject: [Registry, UsageMetrics],
      useFactory: (registry: Registry, usage: UsageMetrics) => new FetchMetrics(registry, usage),
    },
  ],
  // Proxy mode fetches through the same pipeline.
  exports: [FetchService],
})
export class FetchModule {}
