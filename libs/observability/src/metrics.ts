import { collectDefaultMetrics, Registry } from 'prom-client';

/** One Prometheus registry per process, with Node's default metrics and a `service` label. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
