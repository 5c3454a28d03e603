import { Counter, Gauge, Registry } from 'prom-client';

/** How a proxied exchange arrived: absolute-form HTTP, or a request inside a CONNECT tunnel. */
export type ProxiedKind = 'http' | 'https' | 'tunnel_http';

/** Proxy mode's metrics on the gateway's registry; Fetch's own count the pipeline behind it. */
export class ProxyModeMetrics {
  readonly requests: Counter<'kind' | 'outcome'>;
  readonly connects: Counter<'outcome'>;
  readonly tunnelsOpen: Gauge;
  readonly certificatesIssued: Counter;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'trawl_proxy_mode_requests_total',
      help: 'Proxied requests, by kind (http, https inside CONNECT, tunnel_http) and outcome (answered, or the problem code).',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    });
    this.connects = new Counter({
      name: 'trawl_proxy_mode_connects_total',
      help: 'CONNECT requests, by outcome (tunnel, or the problem code that refused it).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    this.tunnelsOpen = new Gauge({
      name: 'trawl_proxy_mode_tunnels_open',
      help: 'CONNECT tunnels open on this gateway replica.',
      registers: [registry],
    });
    this.certificatesIssued = new Counter({
      name: 'trawl_proxy_mode_certificates_issued_total',
      help: 'Per-host certificates signed with the proxy mode CA (cache misses).',
      registers: [registry],
    });
  }
}
