import { Module } from '@nestjs/common';
import type { MessagingConnection } from '@trawl/messaging';
import { SERVICE_MESSAGING } from '@trawl/service-kit';
import { Registry } from 'prom-client';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { LimitsModule } from '../limits/limits.module';
import { PublicHostCheck } from '../site-urls/site-url';
import { MapController } from './map.controller';
import { workerRpcClient } from '../fetch/worker-rpc';
import { MapMetrics } from './map.metrics';
import { MAP_RPC, MapService } from './map.service';

@Module({
  imports: [LimitsModule],
  controllers: [MapController],
  providers: [
    MapService,
    PublicHostCheck,
    { provide: MapMetrics, inject: [Registry], useFactory: (registry: Registry) => new MapMetrics(registry) },
    {
      provide: MAP_RPC,
      inject: [SERVICE_MESSAGING, GATEWAY_CONFIG, MapMetrics],
      useFactory: (messaging: MessagingConnection, config: GatewayConfig, metrics: MapMetrics) =>
        workerRpcClient(messaging, config, (reason) => metrics.workersNotTaking.inc({ reason })),
    },
  ],
})
export class MapModule {}
