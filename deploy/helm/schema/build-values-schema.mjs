// Writes deploy/helm/trawl/values.schema.json (draft-07). Every block refuses unknown keys, numbers
// are numbers, counts are never negative, KEDA and an HPA cannot both scale the fetch workers, and
// KEDA keeps a fetch worker when it scales on synchronous Fetch requests.
// usage: node deploy/helm/schema/build-values-schema.mjs [--check]
// (--check: exit 1 when the committed file differs; test/deploy/chart-schema.int-spec.ts runs it.)
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'trawl', 'values.schema.json');

const obj = (properties, required = Object.keys(properties)) => ({ type: 'object', additionalProperties: false, required, properties });
const int = (minimum = 0, maximum) => ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) });
const str = (extra = {}) => ({ type: 'string', ...extra });
const bool = { type: 'boolean' };
const anyObject = { type: 'object' };
const list = (items = { type: 'object' }) => ({ type: 'array', items });
const stringMap = { type: 'object', additionalProperties: { type: 'string' } };
const quantity = { type: ['string', 'integer'], pattern: '^[0-9]+(\\.[0-9]+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?$' };
const resources = obj(
  {
    requests: {
      type: 'object',
      additionalProperties: false,
      properties: { cpu: quantity, memory: quantity, 'ephemeral-storage': quantity },
    },
    limits: { type: 'object', additionalProperties: false, properties: { cpu: quantity, memory: quantity, 'ephemeral-storage': quantity } },
  },
  [],
);
const envVar = { type: 'object', required: ['name'], properties: { name: str({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }) } };
const pdb = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled'],
  properties: {
    enabled: bool,
    minAvailable: { type: ['integer', 'string'], minimum: 0 },
    maxUnavailable: { type: ['integer', 'string'], minimum: 0 },
  },
  description: 'minAvailable, when set, wins over maxUnavailable (whose default is 1)',
};
const hpa = obj({ enabled: bool, minReplicas: int(1), maxReplicas: int(1), targetCPUUtilizationPercentage: int(1, 100) });
const networkPeers = list(anyObject);
const ports = list(
  obj({ port: { type: ['integer', 'string'], minimum: 1, maximum: 65535 }, protocol: { enum: ['TCP', 'UDP', 'SCTP'] } }, ['port']),
);

/** Keys every service block has. */
function service(extra) {
  return obj({
    replicas: int(0),
    resources,
    shutdownTimeoutMs: int(0),
    // At least 1: a grace period equal to the drain kills a pod that is still draining.
    terminationGraceMarginSeconds: int(1, 3600),
    podDisruptionBudget: pdb,
    topologySpreadConstraints: list(),
    defaultTopologySpread: bool,
    affinity: anyObject,
    nodeSelector: stringMap,
    tolerations: list(),
    podAnnotations: stringMap,
    podLabels: stringMap,
    extraEnv: list(envVar),
    extraEnvFrom: list(),
    // A private CA for webhook receivers or targets (NODE_EXTRA_CA_CERTS, TLS_EXTRA_CA_FILE) is a file:
    // without these, no value could put one in the pod.
    extraVolumes: list({
      type: 'object',
      required: ['name'],
      properties: { name: str({ pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', not: { enum: ['tmp', 'dshm'] } }) },
    }),
    extraVolumeMounts: list({
      type: 'object',
      required: ['name', 'mountPath'],
      properties: { name: str(), mountPath: str({ pattern: '^/' }) },
    }),
    config: {
      type: 'object',
      description: 'More environment variables of the service, by name',
      propertyNames: { pattern: '^[A-Z][A-Z0-9_]*$' },
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
    ...extra,
  });
}

const kedaTrigger = obj({ lagThreshold: int(1), activationLagThreshold: int(0) });
const enabledIs = (value) => ({ properties: { enabled: { const: value } }, required: ['enabled'] });

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Values of the Trawl chart',
  ...obj({
    nameOverride: str(),
    fullnameOverride: str(),
    image: obj({
      repository: str({ minLength: 1 }),
      tag: { type: 'string' },
      digest: str({ pattern: '^(sha256:[a-f0-9]{64})?$' }),
      pullPolicy: { enum: ['Always', 'IfNotPresent', 'Never'] },
    }),
    imagePullSecrets: list(obj({ name: str({ minLength: 1 }) })),
    secrets: obj({
      existingSecret: str({ minLength: 1 }),
      keys: obj({
        databaseUrl: str({ minLength: 1 }),
        adminToken: str({ minLength: 1 }),
        secretsKey: str({ minLength: 1 }),
        proxyModeCaCert: str({ minLength: 1 }),
        proxyModeCaKey: str({ minLength: 1 }),
      }),
    }),
    nats: obj({
      url: str({ minLength: 1 }),
      prefix: str({ pattern: '^[a-z][a-z0-9_]*$' }),
      streamReplicas: int(1, 5),
      monitoringEndpoint: str({ pattern: '^[^/:]+(:[0-9]+)?$' }),
      account: str({ minLength: 1 }),
    }),
    postgres: obj({
      cloudnativepg: obj({
        enabled: bool,
        clusterName: str({ pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$', maxLength: 50 }),
        instances: int(1, 9),
        imageName: str(),
        database: str({ pattern: '^[a-z_][a-z0-9_]*$' }),
        owner: str({ pattern: '^[a-z_][a-z0-9_]*$' }),
        storage: obj({ size: quantity, storageClass: str() }),
        parameters: { type: 'object', additionalProperties: { type: ['string', 'number'] } },
        resources,
      }),
    }),
    migrations: obj({
      mode: { enum: ['hook', 'gitops'] },
      backoffLimit: int(0, 100),
      activeDeadlineSeconds: int(1),
      ttlSecondsAfterFinished: int(0),
      resources,
      podAnnotations: stringMap,
      podLabels: stringMap,
    }),
    logLevel: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    tracing: obj({ otlpTracesEndpoint: str({ pattern: '^(https?://.+)?$' }) }),
    plans: obj({
      credits: int(0),
      concurrency: int(1, 10000),
      maxActiveJobs: int(1, 1000),
      extractDomainsPerPeriod: int(0, 100000),
      rateLimitPerMinute: int(1, 1000000),
      periodDays: int(1, 3660),
    }),
    serviceAccount: obj({ create: bool, name: str(), annotations: stringMap, automountServiceAccountToken: bool }),
    gateway: service({
      preStopSleepSeconds: int(0, 300),
      databasePoolSize: int(1, 500),
      trustedProxies: str({ pattern: '^[0-9a-fA-F:.,/ ]*$' }),
      publicBaseUrl: str({ pattern: '^(https?://.+)?$' }),
      adminPort: int(1, 65535),
      proxyMode: obj({ enabled: bool, port: int(1, 65535), caSecret: obj({ name: str(), certKey: str(), keyKey: str() }) }),
      service: obj({
        type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] },
        port: int(1, 65535),
        proxyModePort: int(1, 65535),
        annotations: stringMap,
      }),
      autoscaling: obj({ hpa }),
    }),
    crawlCoordinator: service({ dbPoolSize: int(1, 200) }),
    fetchWorker: {
      ...service({
        concurrency: int(1, 4096),
        batchConcurrency: int(0, 4096),
        fetchConcurrency: int(1, 4096),
        browsers: int(0, 64),
        pagesPerBrowser: int(1, 64),
        browserRetireAfterPages: int(1, 100000),
        // Per target host across every replica and tenant (HOST_*; docs/decisions/politeness.md).
        hostPoliteness: obj({
          concurrency: int(0, 100000),
          ratePerSecond: { type: 'number', minimum: 0, maximum: 100000 },
          backoff: bool,
          backoffBaseMs: int(10, 600000),
          backoffMaxMs: int(100, 3600000),
        }),
        // Kept copies of max_age requests (PAGE_COPY_*; docs/decisions/page-copies.md).
        pageCopies: obj({
          maxBytes: int(1048576, 1099511627776),
          ttlMs: int(60000, 2592000000),
          maxEntryBytes: int(1024, 67108864),
        }),
        // change_tracking's last version of each URL per tenant (PAGE_VERSION_*; docs/decisions/change-tracking.md).
        pageVersions: obj({
          maxBytes: int(1048576, 1099511627776),
          ttlMs: int(60000, 31536000000),
        }),
        shm: obj({ sizeLimit: quantity }),
        tmp: obj({ sizeLimit: quantity }),
        autoscaling: {
          ...obj({
            keda: obj({
              enabled: bool,
              minReplicas: int(0),
              maxReplicas: int(1),
              pollingInterval: int(1),
              cooldownPeriod: int(0),
              crawlPages: kedaTrigger,
              batchTasks: kedaTrigger,
              fetchRequests: obj({
                enabled: bool,
                serverAddress: str({ pattern: '^https?://.+' }),
                threshold: int(1),
                activationThreshold: int(0),
              }),
            }),
            hpa,
          }),
          // Two autoscalers on one Deployment fight over its replica count.
          not: { properties: { keda: enabledIs(true), hpa: enabledIs(true) } },
          // A synchronous Fetch request cannot wake a Deployment at zero: with the fetchRequests
          // trigger, KEDA keeps at least one fetch worker.
          if: { properties: { keda: { properties: { fetchRequests: enabledIs(true) }, required: ['fetchRequests'] } }, required: ['keda'] },
          then: { properties: { keda: { properties: { minReplicas: { minimum: 1 } } } } },
        },
      }),
    },
    scheduler: service({ dbPoolSize: int(1, 200) }),
    webhookDispatcher: service({ dbPoolSize: int(1, 200), concurrency: int(1, 1000) }),
    networkPolicy: obj({
      enabled: bool,
      dns: obj({ to: networkPeers, ports }),
      nats: obj({ to: networkPeers, ports }),
      postgres: obj({ to: networkPeers, ports }),
      tracing: obj({ to: networkPeers, ports }),
      gateway: obj({ ingressFrom: networkPeers }),
      metrics: obj({ from: networkPeers }),
      admin: obj({ from: networkPeers }),
      internetEgress: obj({ gateway: bool, extraDeniedCidrs: list(str({ pattern: '^[0-9a-fA-F:.]+/[0-9]{1,3}$' })) }),
    }),
    monitoring: obj({
      serviceMonitors: obj({
        enabled: bool,
        interval: str({ pattern: '^[0-9]+(ms|s|m|h)$' }),
        scrapeTimeout: str({ pattern: '^[0-9]+(ms|s|m|h)$' }),
        labels: stringMap,
      }),
      prometheusRule: obj({ enabled: bool, labels: stringMap, runbookBaseUrl: str({ pattern: '^https?://.+' }) }),
      dashboards: obj({ enabled: bool, namespace: str(), label: str({ minLength: 1 }), labelValue: str(), annotations: stringMap }),
    }),
    tests: obj({ resources }),
  }),
};

const text = JSON.stringify(schema, null, 2) + '\n';
if (process.argv.includes('--check')) {
  if (readFileSync(out, 'utf8') !== text) {
    console.error(`${out} is out of date: run node deploy/helm/schema/build-values-schema.mjs`);
    process.exit(1);
  }
} else {
  writeFileSync(out, text);
}
