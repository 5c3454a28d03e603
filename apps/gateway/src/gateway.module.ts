import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { ChargeBuffer, UsageMetrics } from '@trawl/billing';
import { EgressPolicy } from '@trawl/egress';
import type { MessagingConnection } from '@trawl/messaging';
import { HealthModule, Logger } from '@trawl/observability';
import { Database } from '@trawl/persistence';
import { SERVICE_LOGGER, SERVICE_MESSAGING, serviceReadinessChecks } from '@trawl/service-kit';
import { Registry } from 'prom-client';
import { AuthModule } from './auth/auth.module';
import { BatchModule } from './batch/batch.module';
import type { GatewayConfig } from './config';
import { CrawlsModule } from './crawls/crawls.module';
import { ExtractModule } from './extract/extract.module';
import { FetchModule } from './fetch/fetch.module';
import { MapModule } from './map/map.module';
import { McpModule } from './mcp/mcp.module';
import { FileTransferSlots } from './file-transfers/file-transfer-slots';
import { GATEWAY_CONFIG } from './gateway.tokens';
import { JobExportsModule } from './job-exports/job-exports.module';
import { JobInputsModule } from './job-inputs/job-inputs.module';
import { OpenApiModule } from './openapi/openapi.module';
import { TenantAdminModule } from './tenants/tenant-admin.module';
import { TenantsModule } from './tenants/tenants.module';
import { UsageModule } from './usage/usage.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/** What the gateway holds open for its lifetime; opened by `openGatewayResources`. */
export interface GatewayResources {
  config: GatewayConfig;
  logger: Logger;
  db: Database;
  messaging: MessagingConnection;
  egress: EgressPolicy;
  registry: Registry;
  /** Fetch charges on their way to the ledger; written before the database closes. */
  charges: ChargeBuffer;
}

/** Closes the resources when the app closes (after the HTTP server has drained). Safe twice. */
@Injectable()
class GatewayResourcesCloser implements OnApplicationShutdown {
  constructor(
    private readonly db: Database,
    private readonly charges: ChargeBuffer,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    // After the HTTP server drained: no request adds a charge any more.
    await this.charges
      .close()
      .catch((error: unknown) => this.logger.error({ err: error, pending: this.charges.size }, 'fetch charges not written at shutdown'));
    await this.messaging.close();
    if (this.db.dataSource.isInitialized) await this.db.dataSource.destroy();
  }
}

/** The shared resources, visible to every feature module. */
@Module({})
class GatewayCoreModule {
  static register(resources: GatewayResources): DynamicModule {
    const shared = [
      { provide: GATEWAY_CONFIG, useValue: resources.config },
      { provide: SERVICE_LOGGER, useValue: resources.logger },
      { provide: SERVICE_MESSAGING, useValue: resources.messaging },
      { provide: Database, useValue: resources.db },
      { provide: EgressPolicy, useValue: resources.egress },
      { provide: Registry, useValue: resources.registry },
      { provide: ChargeBuffer, useValue: resources.charges },
      // One set of usage series per process, whichever feature bills (Fetch, Map).
      { provide: UsageMetrics, useValue: new UsageMetrics(resources.registry) },
      // One cap for uploads and downloads together: they draw on the same connection pool.
      { provide: FileTransferSlots, useValue: new FileTransferSlots(resources.config.FILE_TRANSFERS_MAX, resources.registry) },
    ];
    return {
      module: GatewayCoreModule,
      global: true,
      providers: [...shared, GatewayResourcesCloser],
      exports: shared.map((provider) => provider.provide),
    };
  }
}

/** The public API: admin (tenants), Fetch API, usage, Crawl API, Batch API, health and metrics. */
@Module({})
export class GatewayModule {
  static register(resources: GatewayResources): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        GatewayCoreModule.register(resources),
        // `postgres`, `nats` and `schema`, as on every service.
        HealthModule.register({ registry: resources.registry, checks: serviceReadinessChecks(resources) }),
        AuthModule,
        TenantsModule,
        TenantAdminModule,
        CrawlsModule,
        MapModule,
        McpModule,
        ExtractModule,
        FetchModule,
        UsageModule,
        WebhooksModule,
        JobInputsModule,
        JobExportsModule,
        BatchModule,
        OpenApiModule,
      ],
    };
  }
}
