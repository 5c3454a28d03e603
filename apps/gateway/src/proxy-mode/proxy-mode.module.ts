import { BeforeApplicationShutdown, DynamicModule, Inject, Injectable, Module, OnApplicationBootstrap } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, stopDeadlinesOf } from '@trawl/service-kit';
import { Registry } from 'prom-client';
import { ApiKeyAuthenticator } from '../auth/api-key-authenticator';
import { AuthModule } from '../auth/auth.module';
import type { GatewayConfig } from '../config';
import { FetchModule } from '../fetch/fetch.module';
import { FetchService } from '../fetch/fetch.service';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { ClientAddressHealth } from '../limits/client-address-health';
import { LimitsModule } from '../limits/limits.module';
import {
  CertificateAuthority,
  CertificateAuthorityError,
  createCertificateAuthorityAsync,
  loadCertificateAuthority,
} from './certificate-authority';
import { LeafCertificates } from './leaf-certificates';
import { ProxiedRequestHandler } from './proxied-request';
import { ProxyModeMetrics } from './proxy-mode.metrics';
import type { ClientAddressGuard } from './proxy-mode.ports';
import { ProxyModeServer } from './proxy-mode.server';

/**
 * Runs proxy mode beside the API when `PROXY_MODE_ENABLED`: listens once the app has booted,
 * stops (draining proxied requests) before the app's resources close.
 */
@Injectable()
export class ProxyModeRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private server?: ProxyModeServer;

  constructor(
    private readonly fetcher: FetchService,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly addresses: ClientAddressHealth,
    private readonly registry: Registry,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** Where proxy mode listens; `undefined` when disabled or not started. */
  address(): AddressInfo | undefined {
    return this.server?.address();
  }

  async onApplicationBootstrap(): Promise<void> {
    const config = this.config;
    if (!config.PROXY_MODE_ENABLED || this.server) return;
    const metrics = new ProxyModeMetrics(this.registry);
    const certificates = new LeafCertificates(this.certificateAuthority(), {
      maxEntries: config.PROXY_MODE_CERT_CACHE_SIZE,
      onIssued: () => metrics.certificatesIssued.inc(),
    });
    const addresses: ClientAddressGuard = {
      blockedUntil: (address) => this.addresses.blockedUntil(address),
      record: (address, isError) => this.addresses.record(address, isError),
    };
    const handler = new ProxiedRequestHandler(this.authenticator, this.fetcher, addresses, metrics, this.logger, {
      bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
      creditPriceUsd: config.FETCH_CREDIT_PRICE_USD,
    });
    this.server = new ProxyModeServer(handler, this.authenticator, addresses, certificates, metrics, this.logger, {
      host: config.HTTP_HOST,
      port: config.PROXY_MODE_PORT,
      drainTimeoutMs: stopDeadlinesOf(config.SHUTDOWN_TIMEOUT_MS).drainMs,
    });
    await this.server.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server?.stop();
  }

  /** The operator's CA, checked now; else what makes one for this process on the first CONNECT. */
  private certificateAuthority(): CertificateAuthority | (() => Promise<CertificateAuthority>) {
    const { PROXY_MODE_CA_CERT: cert, PROXY_MODE_CA_KEY: key } = this.config;
    if (cert !== undefined && key !== undefined) return loadCertificateAuthority(cert, key.reveal());
    if (cert !== undefined || key !== undefined) {
      throw new CertificateAuthorityError('PROXY_MODE_CA_CERT and PROXY_MODE_CA_KEY go together: set both, or neither.');
    }
    this.logger.warn(
      'PROXY_MODE_CA_CERT/PROXY_MODE_CA_KEY not set: HTTPS in proxy mode uses a CA made for this process, which no client trusts',
    );
    return () => createCertificateAuthorityAsync();
  }
}

/** Proxy mode: the Fetch API as an HTTP forward proxy on `PROXY_MODE_PORT`. */
@Module({
  imports: [AuthModule, FetchModule, LimitsModule],
  providers: [ProxyModeRunner],
})
export class ProxyModeModule {}

@Module({})
class GatewayWithProxyModeModule {}

/**
 * The gateway as its process runs it: the API module plus proxy mode. Apps that tests build around
 * the API alone leave proxy mode out, so they never compete for `PROXY_MODE_PORT`.
 */
export function withProxyMode(api: DynamicModule): DynamicModule {
  return { module: GatewayWithProxyModeModule, imports: [api, ProxyModeModule] };
}
