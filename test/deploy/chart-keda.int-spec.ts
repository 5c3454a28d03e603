import { batchMessagingDefinitions, crawlMessagingDefinitions, messagingTopology } from '@trawl/contracts';
import { find, K8sObject, OPERATOR_APIS, render } from './support/chart';

jest.setTimeout(60_000);

/** Keys KEDA's nats-jetstream scaler reads (a misspelt key is ignored, and a missing stream or consumer scales to the maximum). */
const NATS_JETSTREAM_KEYS = ['natsServerMonitoringEndpoint', 'account', 'stream', 'consumer', 'lagThreshold', 'activationLagThreshold'];
const PROMETHEUS_KEYS = ['serverAddress', 'query', 'threshold', 'activationThreshold'];

async function scaledObject(set: string[] = []): Promise<K8sObject> {
  const objects = await render({ valuesFiles: ['ci/full-values.yaml'], apiVersions: OPERATOR_APIS, set });
  const found = find(objects, 'ScaledObject');
  expect(found).toHaveLength(1);
  return found[0];
}

describe("the fetch workers' KEDA ScaledObject", () => {
  it.each(['prod', 'trawl', 'eu_west'])('names the streams and consumers the services create, with prefix %s', async (prefix) => {
    const topology = messagingTopology(prefix);
    const so = await scaledObject([`nats.prefix=${prefix}`]);
    const jetstream = so.spec.triggers.filter((t: any) => t.type === 'nats-jetstream');
    const pairs = jetstream.map((t: any) => [t.metadata.stream, t.metadata.consumer]);
    expect(pairs).toEqual([
      [topology.streams.crawlWork, topology.consumers.fetchWorkers],
      [topology.streams.batchWork, topology.consumers.batchWorkers],
    ]);
    // ... and those are durables the services provision on those streams.
    const provisioned = [...crawlMessagingDefinitions(topology).consumers, ...batchMessagingDefinitions(topology).consumers].map((c) => [
      c.stream,
      c.durable,
    ]);
    for (const pair of pairs) expect(provisioned).toContainEqual(pair);
  });

  it('uses exactly the trigger keys KEDA reads, all as strings, with thresholds from values', async () => {
    const so = await scaledObject();
    expect(so.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'trawl-fetch-worker' });
    expect(so.spec).toMatchObject({ minReplicaCount: 2, maxReplicaCount: 50, pollingInterval: 10, cooldownPeriod: 120 });
    const [crawl, batch, inFlight] = so.spec.triggers;
    for (const trigger of [crawl, batch]) {
      expect(trigger.type).toBe('nats-jetstream');
      expect(Object.keys(trigger.metadata).sort()).toEqual([...NATS_JETSTREAM_KEYS].sort());
      expect(trigger.metadata.natsServerMonitoringEndpoint).toBe('nats.nats.svc:8222');
      expect(trigger.metadata.account).toBe('$G');
      for (const value of Object.values(trigger.metadata)) expect(typeof value).toBe('string');
    }
    expect(crawl.metadata).toMatchObject({ lagThreshold: '200', activationLagThreshold: '5' });
    expect(batch.metadata).toMatchObject({ lagThreshold: '80', activationLagThreshold: '1' });
    expect(inFlight.type).toBe('prometheus');
    expect(inFlight.metricType).toBe('AverageValue');
    expect(Object.keys(inFlight.metadata).sort()).toEqual([...PROMETHEUS_KEYS].sort());
    expect(inFlight.metadata.query).toMatch(
      /^sum\(trawl_worker_fetch_requests_in_flight\{namespace="scrape",pod=~"trawl-fetch-worker-\.\*"\}\)$/,
    );
    expect(inFlight.metadata).toMatchObject({
      serverAddress: 'http://prometheus-operated.monitoring.svc:9090',
      threshold: '20',
      activationThreshold: '1',
    });
  });

  it('leaves the Prometheus trigger out unless asked for', async () => {
    const so = await scaledObject(['fetchWorker.autoscaling.keda.fetchRequests.enabled=false']);
    expect(so.spec.triggers.map((t: any) => t.type)).toEqual(['nats-jetstream', 'nats-jetstream']);
  });

  it('writes large thresholds as plain digits', async () => {
    const so = await scaledObject(['fetchWorker.autoscaling.keda.crawlPages.lagThreshold=2000000']);
    expect(so.spec.triggers[0].metadata.lagThreshold).toBe('2000000');
  });
});
