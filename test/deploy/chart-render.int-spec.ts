import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import {
  CI_MATRIX,
  chartDir,
  COMPONENTS,
  Component,
  containerEnv,
  find,
  K8sObject,
  only,
  OPERATOR_APIS,
  render,
  tool,
} from './support/chart';
import { admittedPeers } from './support/network-policy';
import { modelValidate, typedCheck } from './support/typed-check';

jest.setTimeout(120_000);

const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16'];
const podSpecs = (objects: K8sObject[]) =>
  objects.flatMap((o) =>
    o.kind === 'Pod'
      ? [{ name: `Pod/${o.metadata.name}`, spec: o.spec }]
      : o.spec?.template?.spec
        ? [{ name: `${o.kind}/${o.metadata.name}`, spec: o.spec.template.spec }]
        : [],
  );
const deployment = (objects: K8sObject[], component: Component, release = 'trawl') =>
  only(objects, 'Deployment', `${release}-${component}`);
const portNames = (service: K8sObject) => service.spec.ports.map((p: { name: string }) => p.name);
/** The release's `helm test` pod, as the NetworkPolicies name it. */
const TEST_POD = {
  podSelector: {
    matchLabels: { 'app.kubernetes.io/name': 'trawl', 'app.kubernetes.io/instance': 'trawl', 'app.kubernetes.io/component': 'test' },
  },
};
/** networkPolicy.metrics.from's default: Prometheus pods in any namespace. */
const PROMETHEUS = { namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } };

describe('the trawl chart', () => {
  const renders = new Map<string, K8sObject[]>();

  beforeAll(async () => {
    await Promise.all(
      CI_MATRIX.map(async (entry) =>
        renders.set(entry.name, await render({ valuesFiles: [entry.file], apiVersions: entry.apiVersions, extraArgs: ['--include-crds'] })),
      ),
    );
    renders.set('defaults', await render());
  });

  describe('helm lint --strict', () => {
    it.each(CI_MATRIX.map((e) => [e.name, e.file]))('passes with the %s values', async (_name, file) => {
      const result = await tool('helm', ['lint', '--strict', chartDir, '-f', resolve(chartDir, file)]);
      expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
      expect(result.code).toBe(0);
    });
  });

  describe('every rendered object', () => {
    it("passes the models' validation and the typed check (unknown fields included) in every values set", () => {
      const all = [...renders.entries()].flatMap(([name, objects]) =>
        objects.map((o) => ({ ...o, metadata: { ...o.metadata, name: `${name}:${o.metadata.name}` } })),
      );
      expect(all.length).toBeGreaterThan(60);
      expect(modelValidate(all)).toEqual([]);
      expect(typedCheck(all)).toEqual([]);
    });

    it('is caught by the typed check when it holds a field Kubernetes does not know, which validate() lets through', () => {
      const gateway = structuredClone(deployment(renders.get('defaults')!, 'gateway'));
      gateway.spec.template.spec.containers[0].readinessProbe.httpGet.pth = '/readyz';
      gateway.spec.replicas = 'two';
      expect(
        modelValidate([gateway])
          .map((p) => p.problem)
          .join('\n'),
      ).not.toMatch(/pth/);
      const problems = typedCheck([gateway])
        .map((p) => p.problem)
        .join('\n');
      expect(problems).toMatch(/'"?pth"?' does not exist in type 'IHTTPGetAction'/);
      expect(problems).toMatch(/Type 'string' is not assignable to type 'number'/);
    });
  });

  describe('the services', () => {
    it('run every service from the one image with its name as the argument, a Service with an http port, and the fixed labels', () => {
      const objects = renders.get('defaults')!;
      for (const [component, port] of Object.entries(COMPONENTS)) {
        const d = deployment(objects, component as Component);
        const container = d.spec.template.spec.containers[0];
        expect(container.args).toEqual([component]);
        expect(container.image).toBe('ghcr.io/trawl-dev/trawl:0.1.0');
        expect(d.spec.selector.matchLabels).toEqual({
          'app.kubernetes.io/name': 'trawl',
          'app.kubernetes.io/instance': 'trawl',
          'app.kubernetes.io/component': component,
        });
        expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
        expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
        expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
        expect(container.ports[0]).toEqual({ name: 'http', containerPort: port, protocol: 'TCP' });
        const service = only(objects, 'Service', `trawl-${component}`);
        expect(service.spec.ports[0]).toMatchObject({ name: 'http', targetPort: 'http' });
        expect(service.spec.selector).toEqual(d.spec.selector.matchLabels);
        expect(containerEnv(d).get('HTTP_HOST')?.value).toBe('0.0.0.0');
        expect(containerEnv(d).get('PORT')?.value).toBe(String(port));
      }
    });

    it('run non-root with a read-only root, no capabilities, seccomp RuntimeDefault, no token, and /tmp as an emptyDir', () => {
      for (const [name, objects] of renders) {
        for (const { name: owner, spec } of podSpecs(objects)) {
          const context = `${name} ${owner}`;
          expect([context, spec.securityContext]).toEqual([
            context,
            expect.objectContaining({
              runAsNonRoot: true,
              runAsUser: 10001,
              runAsGroup: 10001,
              seccompProfile: { type: 'RuntimeDefault' },
            }),
          ]);
          expect([context, spec.automountServiceAccountToken]).toEqual([context, false]);
          for (const container of spec.containers) {
            expect([context, container.securityContext]).toEqual([
              context,
              expect.objectContaining({
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              }),
            ]);
          }
          if (!owner.startsWith('Pod/')) {
            expect([context, spec.volumes.find((v: any) => v.name === 'tmp')?.emptyDir]).toEqual([context, expect.any(Object)]);
          }
        }
      }
    });

    it('give the fetch workers an in-memory /dev/shm', () => {
      const spec = deployment(renders.get('defaults')!, 'fetch-worker').spec.template.spec;
      expect(spec.volumes).toContainEqual({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: '1Gi' } });
      expect(spec.containers[0].volumeMounts).toContainEqual({ name: 'dshm', mountPath: '/dev/shm' });
    });

    it('mount extra volumes beside their own (a private CA for webhooks or targets), and refuse their own names', async () => {
      const objects = await render({
        set: [
          'webhookDispatcher.extraVolumes[0].name=private-ca',
          'webhookDispatcher.extraVolumes[0].configMap.name=corp-ca',
          'webhookDispatcher.extraVolumeMounts[0].name=private-ca',
          'webhookDispatcher.extraVolumeMounts[0].mountPath=/etc/corp-ca',
        ],
      });
      const spec = deployment(objects, 'webhook-dispatcher').spec.template.spec;
      expect(spec.volumes).toEqual([
        { name: 'tmp', emptyDir: { sizeLimit: '256Mi' } },
        { name: 'private-ca', configMap: { name: 'corp-ca' } },
      ]);
      expect(spec.containers[0].volumeMounts).toEqual([
        { name: 'tmp', mountPath: '/tmp' },
        { name: 'private-ca', mountPath: '/etc/corp-ca' },
      ]);
      expect(deployment(objects, 'gateway').spec.template.spec.volumes).toEqual([{ name: 'tmp', emptyDir: { sizeLimit: '256Mi' } }]);
      await expect(
        render({ set: ['fetchWorker.extraVolumes[0].name=dshm', 'fetchWorker.extraVolumes[0].emptyDir.medium=Memory'] }),
      ).rejects.toThrow(/fetchWorker\/extraVolumes\/0\/name/);
    });

    it('wait longer than each service drains before killing it (SHUTDOWN_TIMEOUT_MS, preStop and a margin)', async () => {
      const objects = await render({
        set: ['crawlCoordinator.shutdownTimeoutMs=61500', 'gateway.preStopSleepSeconds=7', 'fetchWorker.terminationGraceMarginSeconds=3'],
      });
      for (const component of Object.keys(COMPONENTS) as Component[]) {
        const d = deployment(objects, component);
        const drainMs = Number(containerEnv(d).get('SHUTDOWN_TIMEOUT_MS')?.value);
        const preStop = Number(d.spec.template.spec.containers[0].lifecycle?.preStop?.exec?.command?.[1] ?? 0);
        expect(d.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(drainMs + preStop * 1000);
      }
      expect(deployment(objects, 'crawl-coordinator').spec.template.spec.terminationGracePeriodSeconds).toBe(62 + 10);
      expect(deployment(objects, 'gateway').spec.template.spec.terminationGracePeriodSeconds).toBe(30 + 7 + 10);
      expect(deployment(objects, 'fetch-worker').spec.template.spec.terminationGracePeriodSeconds).toBe(30 + 3);
    });

    it('take configuration from values, and every secret from the existing secret by its named key', () => {
      const objects = renders.get('defaults')!;
      const env = (c: Component) => containerEnv(deployment(objects, c));
      for (const component of Object.keys(COMPONENTS) as Component[]) {
        // NATS as README.md installs it (release "nats" in namespace "nats").
        expect(env(component).get('NATS_URL')?.value).toBe('nats://nats.nats.svc:4222');
        expect(env(component).get('NATS_PREFIX')?.value).toBe('trawl');
        expect(env(component).get('NATS_STREAM_REPLICAS')?.value).toBe('3');
        expect(env(component).get('LOG_LEVEL')?.value).toBe('info');
        const database = env(component).get('DATABASE_URL');
        if (component === 'fetch-worker') expect(database).toBeUndefined();
        else expect(database?.valueFrom).toEqual({ secretKeyRef: { name: 'trawl-secrets', key: 'database-url' } });
        for (const e of env(component).values()) {
          if (/TOKEN|KEY|SECRET|DATABASE_URL|CA_CERT/.test((e as any).name)) expect((e as any).valueFrom?.secretKeyRef).toBeDefined();
        }
      }
      expect(env('gateway').get('ADMIN_TOKEN')?.valueFrom).toEqual({ secretKeyRef: { name: 'trawl-secrets', key: 'admin-token' } });
      for (const c of ['gateway', 'scheduler', 'webhook-dispatcher'] as const) {
        expect(env(c).get('SECRETS_KEY')?.valueFrom).toEqual({ secretKeyRef: { name: 'trawl-secrets', key: 'secrets-key' } });
      }
      expect(env('gateway').get('PLAN_DEFAULT_CREDITS')?.value).toBe('1000000');
      expect(env('gateway').get('PLAN_DEFAULT_MAX_ACTIVE_JOBS')?.value).toBe('3');
      expect(env('fetch-worker').get('BROWSERS')?.value).toBe('2');
      expect(env('fetch-worker').get('PAGES_PER_BROWSER')?.value).toBe('4');
      expect(env('fetch-worker').has('ADMIN_TOKEN')).toBe(false);
    });

    it('give every gateway replica the same proxy-mode CA, from a Secret', () => {
      const full = containerEnv(deployment(renders.get('full')!, 'gateway'));
      expect(full.get('PROXY_MODE_CA_CERT')?.valueFrom).toEqual({ secretKeyRef: { name: 'trawl-proxy-ca', key: 'tls.crt' } });
      expect(full.get('PROXY_MODE_CA_KEY')?.valueFrom).toEqual({ secretKeyRef: { name: 'trawl-proxy-ca', key: 'tls.key' } });
      const defaults = containerEnv(deployment(renders.get('defaults')!, 'gateway'));
      expect(defaults.get('PROXY_MODE_CA_KEY')?.valueFrom).toEqual({ secretKeyRef: { name: 'trawl-secrets', key: 'proxy-mode-ca.key' } });
    });

    describe("the gateway's admin listener", () => {
      it('is a container port named admin with ADMIN_PORT (8085 by default), probes staying on http', () => {
        for (const name of ['defaults', 'full']) {
          const gateway = deployment(renders.get(name)!, 'gateway');
          const container = gateway.spec.template.spec.containers[0];
          expect([name, container.ports]).toEqual([
            name,
            expect.arrayContaining([{ name: 'admin', containerPort: 8085, protocol: 'TCP' }]),
          ]);
          expect([name, containerEnv(gateway).get('ADMIN_PORT')?.value]).toEqual([name, '8085']);
          for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
            expect([name, probe, container[probe].httpGet.port]).toEqual([name, probe, 'http']);
        }
        for (const component of ['crawl-coordinator', 'fetch-worker', 'scheduler', 'webhook-dispatcher'] as const) {
          const d = deployment(renders.get('defaults')!, component);
          expect([component, d.spec.template.spec.containers[0].ports.map((p: { name: string }) => p.name)]).toEqual([component, ['http']]);
          expect([component, containerEnv(d).has('ADMIN_PORT')]).toEqual([component, false]);
        }
      });

      it('is never a port of the API Service, whatever its type; a ClusterIP Service of its own serves it', () => {
        for (const name of ['defaults', 'full', 'minimal', 'hpa', 'gitops']) {
          const objects = renders.get(name)!;
          const api = only(objects, 'Service', 'trawl-gateway');
          expect([name, portNames(api).filter((p: string) => p !== 'proxy')]).toEqual([name, ['http']]);
          expect([name, api.spec.ports.filter((p: any) => p.targetPort === 'admin' || p.port === 8085)]).toEqual([name, []]);
          const admin = only(objects, 'Service', 'trawl-gateway-admin');
          expect([name, admin.spec.type]).toEqual([name, 'ClusterIP']);
          expect([name, admin.spec.ports]).toEqual([name, [{ name: 'admin', port: 8085, targetPort: 'admin', protocol: 'TCP' }]]);
          expect([name, admin.spec.selector]).toEqual([name, deployment(objects, 'gateway').spec.selector.matchLabels]);
          // Its own component label: no selector meant for the API Service picks it up.
          expect([name, admin.metadata.labels?.['app.kubernetes.io/component']]).toEqual([name, 'gateway-admin']);
        }
        expect(only(renders.get('full')!, 'Service', 'trawl-gateway').spec.type).toBe('LoadBalancer');
      });

      it('takes its port from gateway.adminPort, and refuses one the API or proxy mode listens on', async () => {
        const objects = await render({ set: ['gateway.adminPort=9102'] });
        const gateway = deployment(objects, 'gateway');
        expect(containerEnv(gateway).get('ADMIN_PORT')?.value).toBe('9102');
        expect(gateway.spec.template.spec.containers[0].ports).toContainEqual({ name: 'admin', containerPort: 9102, protocol: 'TCP' });
        expect(only(objects, 'Service', 'trawl-gateway-admin').spec.ports).toEqual([
          { name: 'admin', port: 9102, targetPort: 'admin', protocol: 'TCP' },
        ]);
        await expect(render({ set: ['gateway.adminPort=8080'] })).rejects.toThrow(/gateway\.adminPort: 8080 is taken/);
        await expect(render({ set: ['gateway.adminPort=8001'] })).rejects.toThrow(/gateway\.adminPort: 8001 is taken/);
        await expect(render({ set: ['gateway.adminPort=8001', 'gateway.proxyMode.enabled=false'] })).resolves.toBeDefined();
        await expect(render({ set: ['gateway.config.ADMIN_PORT=9000'] })).rejects.toThrow(
          /gateway\.config\.ADMIN_PORT: the chart sets ADMIN_PORT/,
        );
      });
    });

    it('pass config entries through and refuse one that names a variable the chart sets itself', async () => {
      const env = containerEnv(deployment(renders.get('full')!, 'gateway'));
      expect(env.get('FETCH_DEADLINE_MS')?.value).toBe('170000');
      expect(env.get('FETCH_CREDIT_PRICE_USD')?.value).toBe('0.0002');
      expect(env.get('PLAN_DEFAULT_CREDITS')?.value).toBe('250000');
      await expect(render({ set: ['scheduler.config.NATS_URL=nats://elsewhere:4222'] })).rejects.toThrow(
        /scheduler\.config\.NATS_URL: the chart sets NATS_URL/,
      );
      await expect(render({ set: ['gateway.extraEnv[0].name=ADMIN_TOKEN', 'gateway.extraEnv[0].value=x'] })).rejects.toThrow(
        /ADMIN_TOKEN is set by the chart/,
      );
    });

    it('contain no lookup and no random secret', () => {
      const files = readdirSync(resolve(chartDir, 'templates'), { recursive: true, encoding: 'utf8' }).filter((f) =>
        /\.(ya?ml|tpl|txt)$/.test(f),
      );
      expect(files.length).toBeGreaterThan(5);
      for (const file of files) {
        const text = readFileSync(resolve(chartDir, 'templates', file), 'utf8');
        expect([
          file,
          text.match(
            /\b(lookup|randAlphaNum|randAlpha|randAscii|randNumeric|randBytes|genPrivateKey|genCA|genSelfSignedCert|uuidv4)\b/,
          )?.[0],
        ]).toEqual([file, undefined]);
      }
    });
  });

  describe('API versions from the cluster', () => {
    it('pick policy/v1 and autoscaling/v2 where they are served (chart-cluster.int-spec.ts installs on 1.20, which serves neither)', () => {
      const current = renders.get('hpa')!;
      expect(new Set(find(current, 'PodDisruptionBudget').map((o) => o.apiVersion))).toEqual(new Set(['policy/v1']));
      expect(new Set(find(current, 'HorizontalPodAutoscaler').map((o) => o.apiVersion))).toEqual(new Set(['autoscaling/v2']));
    });

    it('render the CloudNativePG Cluster and KEDA objects only when their APIs are served', async () => {
      const without = await render({ valuesFiles: ['ci/full-values.yaml'] });
      expect(find(without, 'Cluster')).toEqual([]);
      expect(find(without, 'ScaledObject')).toEqual([]);
      expect(containerEnv(deployment(without, 'gateway')).get('DATABASE_URL')?.valueFrom.secretKeyRef).toEqual({
        name: 'trawl-secrets',
        key: 'database-url',
      });
      expect(deployment(without, 'fetch-worker').spec.replicas).toBe(2);
      const full = renders.get('full')!;
      const cluster = only(full, 'Cluster', 'trawl-postgres');
      expect(cluster.apiVersion).toBe('postgresql.cnpg.io/v1');
      expect(cluster.spec).toMatchObject({
        instances: 3,
        bootstrap: { initdb: { database: 'trawl', owner: 'trawl' } },
        storage: { size: '50Gi', storageClass: 'fast' },
      });
      for (const component of ['gateway', 'crawl-coordinator', 'scheduler', 'webhook-dispatcher'] as const) {
        expect(containerEnv(deployment(full, component)).get('DATABASE_URL')?.valueFrom).toEqual({
          secretKeyRef: { name: 'trawl-postgres-app', key: 'uri' },
        });
      }
      const job = find(full, 'Job')[0];
      expect(job.spec.template.spec.containers[0].env).toContainEqual({
        name: 'DATABASE_URL',
        valueFrom: { secretKeyRef: { name: 'trawl-postgres-app', key: 'uri' } },
      });
      // Scaled by KEDA: no replica count for helm upgrades to reset.
      expect(deployment(full, 'fetch-worker').spec.replicas).toBeUndefined();
    });
  });

  describe('migrations', () => {
    it('run as a pre-install/pre-upgrade hook Job by default, deleted before re-creation and on success', () => {
      const jobs = find(renders.get('defaults')!, 'Job');
      expect(jobs).toHaveLength(1);
      expect(jobs[0].metadata.annotations).toMatchObject({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      expect(jobs[0].spec.template.spec.containers[0].args).toEqual(['migrate']);
      expect(jobs[0].metadata.labels?.['app.kubernetes.io/component']).toBe('migrations');
    });

    it('give the migration Job only what the migrate command reads (libs/persistence/src/cli/migrate.ts: DATABASE_URL)', () => {
      for (const name of ['defaults', 'full']) {
        const job = find(renders.get(name)!, 'Job')[0];
        expect([name, job.spec.template.spec.containers[0].env.map((e: any) => e.name)]).toEqual([name, ['DATABASE_URL']]);
      }
    });

    it('run as a plain Job named after the version in GitOps mode, with no Helm hook anywhere but helm test', () => {
      const objects = renders.get('gitops')!;
      const job = only(objects, 'Job', find(objects, 'Job')[0]?.metadata.name);
      expect(job.metadata.name).toMatch(/^trawl-migrate-[0-9a-f]{10}$/);
      const hooks = objects.filter((o) => o.metadata.annotations?.['helm.sh/hook']);
      expect(hooks.map((o) => o.metadata.annotations!['helm.sh/hook'])).toEqual(['test']);
    });

    it('with CloudNativePG in the release: a plain Job on the first install (no database exists before it), the hook on upgrades', async () => {
      const upgrade = await render({ valuesFiles: ['ci/full-values.yaml'], apiVersions: OPERATOR_APIS, extraArgs: ['--is-upgrade'] });
      expect(find(upgrade, 'Job')[0].metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
      const install = renders.get('full')!;
      expect(find(install, 'Job')[0].metadata.annotations?.['helm.sh/hook']).toBeUndefined();
    });
  });

  describe('NetworkPolicies', () => {
    const policies = () => find(renders.get('full')!, 'NetworkPolicy');
    const policy = (suffix: string) => policies().find((p) => p.metadata.name === `trawl-${suffix}`)!;

    it("deny everything for the release's pods by default", () => {
      expect(policy('default-deny').spec).toEqual({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'trawl', 'app.kubernetes.io/instance': 'trawl' } },
        policyTypes: ['Ingress', 'Egress'],
      });
    });

    const internetComponents = (objects: K8sObject[]) =>
      only(objects, 'NetworkPolicy', 'trawl-internet-egress')
        .spec.podSelector.matchExpressions.find((e: any) => e.key === 'app.kubernetes.io/component')
        .values.sort();

    it('let only the fetch workers, the webhook dispatcher and the gateway (webhook test endpoint) reach the internet, never private, CGNAT, loopback, link-local or metadata addresses', () => {
      const internet = policy('internet-egress');
      expect(internetComponents(renders.get('full')!)).toEqual(['fetch-worker', 'gateway', 'webhook-dispatcher']);
      const [v4, v6] = internet.spec.egress[0].to.map((t: any) => t.ipBlock);
      expect(v4.cidr).toBe('0.0.0.0/0');
      expect(v4.except).toEqual(expect.arrayContaining([...PRIVATE_RANGES, '198.51.100.0/24']));
      expect(v6.cidr).toBe('::/0');
      expect(v6.except).toEqual(expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128', '2001:db8::/32']));
      expect(internet.spec.egress).toHaveLength(1);
    });

    it('keep the gateway off the internet with internetEgress.gateway false', async () => {
      const objects = await render({ set: ['networkPolicy.enabled=true', 'networkPolicy.internetEgress.gateway=false'] });
      expect(internetComponents(objects)).toEqual(['fetch-worker', 'webhook-dispatcher']);
    });

    it('let the pods reach NATS in any namespace by default (README.md installs it in namespace nats)', async () => {
      const objects = await render({ set: ['networkPolicy.enabled=true'] });
      const egress = only(objects, 'NetworkPolicy', 'trawl-backends').spec.egress;
      expect(egress).toContainEqual({
        to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'nats' } } }],
        ports: [{ port: 4222, protocol: 'TCP' }],
      });
    });

    it('let every pod reach DNS, NATS, Postgres and the trace collector by selector', () => {
      const egress = policy('backends').spec.egress;
      expect(egress).toContainEqual({
        to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
        ports: [
          { port: 53, protocol: 'UDP' },
          { port: 53, protocol: 'TCP' },
        ],
      });
      expect(egress).toContainEqual(expect.objectContaining({ ports: [{ port: 4222, protocol: 'TCP' }] }));
      expect(egress).toContainEqual({
        to: [{ podSelector: { matchLabels: { 'cnpg.io/cluster': 'trawl-postgres' } } }],
        ports: [{ port: 5432, protocol: 'TCP' }],
      });
      expect(egress).toContainEqual(expect.objectContaining({ ports: [{ port: 4318, protocol: 'TCP' }] }));
      expect(egress.every((rule: any) => rule.to?.length > 0)).toBe(true);
    });

    it('let ingress reach the gateway (from the configured peers), its admin port and /metrics only', () => {
      const gateway = policy('gateway-ingress');
      expect(gateway.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe('gateway');
      expect(gateway.spec.ingress[0].ports).toEqual([
        { port: 'http', protocol: 'TCP' },
        { port: 'proxy', protocol: 'TCP' },
      ]);
      expect(gateway.spec.ingress[0].from).toHaveLength(2);
      const ingressPolicies = policies().filter((p) => p.spec.policyTypes.includes('Ingress') && p.spec.ingress);
      expect(ingressPolicies.map((p) => p.metadata.name).sort()).toEqual([
        'trawl-gateway-admin-ingress',
        'trawl-gateway-ingress',
        'trawl-metrics-ingress',
      ]);
      expect(policy('gateway-admin-ingress').spec.ingress.map((r: any) => r.ports)).toEqual([[{ port: 'admin', protocol: 'TCP' }]]);
      expect(policy('metrics-ingress').spec.ingress[0].ports).toEqual([{ port: 'http', protocol: 'TCP' }]);
    });

    /** Who may reach a port of a component's pods, by the rendered policies together. */
    const admitted = (objects: K8sObject[], component: Component, port: 'http' | 'proxy' | 'admin') => {
      const pod = deployment(objects, component).spec.template;
      const number = pod.spec.containers[0].ports.find((p: { name: string }) => p.name === port)?.containerPort;
      expect([component, port, number]).toEqual([component, port, expect.any(Number)]);
      return admittedPeers(objects, pod.metadata.labels, { name: port, number });
    };
    const OPERATOR_TOOLING = {
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ops' } },
      podSelector: { matchLabels: { app: 'tenant-sync' } },
    };

    it("admit the gateway's admin port (/admin/v1, /metrics) only from metrics.from, admin.from and the helm test pod", async () => {
      expect(admitted(renders.get('full')!, 'gateway', 'admin')).toEqual([PROMETHEUS, TEST_POD]);
      const withTooling = await render({
        valuesFiles: ['ci/full-values.yaml'],
        extraArgs: ['--set-json', `networkPolicy.admin.from=${JSON.stringify([OPERATOR_TOOLING])}`],
      });
      expect(admitted(withTooling, 'gateway', 'admin')).toEqual([PROMETHEUS, OPERATOR_TOOLING, TEST_POD]);
      // Nobody named: the test pod alone, never an empty `from` (which would admit anyone).
      const nobody = await render({ set: ['networkPolicy.enabled=true'], extraArgs: ['--set-json', 'networkPolicy.metrics.from=[]'] });
      expect(admitted(nobody, 'gateway', 'admin')).toEqual([TEST_POD]);
      // The test pod checks the admin Service's /readyz: its egress allows the port.
      expect(policy('test-egress').spec.egress[0].ports).toEqual([
        { port: 'http', protocol: 'TCP' },
        { port: 'admin', protocol: 'TCP' },
      ]);
    });

    it("never let Prometheus (metrics.from) or admin.from reach the gateway's API port; the others' /metrics stay on http", async () => {
      const full = renders.get('full')!;
      const ingressFrom = [
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
        { ipBlock: { cidr: '203.0.113.0/24' } },
      ];
      // The test pod checks /readyz on the API port whoever gateway.ingressFrom names.
      expect(admitted(full, 'gateway', 'http')).toEqual([...ingressFrom, TEST_POD]);
      expect(admitted(full, 'gateway', 'proxy')).toEqual(ingressFrom);
      for (const component of ['crawl-coordinator', 'fetch-worker', 'scheduler', 'webhook-dispatcher'] as const) {
        expect([component, admitted(full, component, 'http')]).toEqual([component, [PROMETHEUS, TEST_POD]]);
      }
      // With gateway.ingressFrom empty the API port is open to anyone, the admin port still is not.
      const open = await render({
        set: ['networkPolicy.enabled=true', 'networkPolicy.admin.from[0].podSelector.matchLabels.app=tenant-sync'],
      });
      expect(admitted(open, 'gateway', 'http')).toBe('anyone');
      expect(admitted(open, 'gateway', 'admin')).toEqual([PROMETHEUS, { podSelector: { matchLabels: { app: 'tenant-sync' } } }, TEST_POD]);
    });

    it('are off unless enabled', () => {
      expect(find(renders.get('defaults')!, 'NetworkPolicy')).toEqual([]);
    });
  });

  describe('PodDisruptionBudgets', () => {
    const pdb = (objects: K8sObject[], component: Component) => only(objects, 'PodDisruptionBudget', `trawl-${component}`).spec;

    it('keep maxUnavailable 0 as 0, default it to 1, and let minAvailable win', async () => {
      const objects = await render({
        set: [
          'gateway.podDisruptionBudget.maxUnavailable=0',
          'scheduler.podDisruptionBudget.minAvailable=0',
          'webhookDispatcher.podDisruptionBudget.maxUnavailable=null',
        ],
      });
      expect(pdb(objects, 'gateway').maxUnavailable).toBe(0);
      expect(pdb(objects, 'gateway').minAvailable).toBeUndefined();
      expect(pdb(objects, 'scheduler')).toMatchObject({ minAvailable: 0 });
      expect(pdb(objects, 'scheduler').maxUnavailable).toBeUndefined();
      expect(pdb(objects, 'webhook-dispatcher').maxUnavailable).toBe(1);
      expect(pdb(objects, 'fetch-worker').maxUnavailable).toBe(1);
    });
  });

  describe('helm test and NOTES.txt', () => {
    it('checks /readyz of every service with the Trawl image', () => {
      const pod = find(renders.get('defaults')!, 'Pod')[0];
      expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test');
      const container = pod.spec.containers[0];
      expect(container.image).toBe('ghcr.io/trawl-dev/trawl:0.1.0');
      expect(container.command[0]).toBe('node');
      const urls = container.env.find((e: any) => e.name === 'READYZ_URLS').value.split(' ');
      // The gateway's through both its Services: the admin one is what Prometheus scrapes.
      const expected = [
        ...Object.entries(COMPONENTS).map(([c, port]) => `http://trawl-${c}:${port}/readyz`),
        'http://trawl-gateway-admin:8085/readyz',
      ];
      expect(urls.sort()).toEqual(expected.sort());
    });

    it('tells how to create the first tenant', async () => {
      const result = await tool('helm', ['install', 'trawl', chartDir, '--dry-run=client', '--namespace', 'scrape']);
      expect(result.stdout).toMatch(/Create the first tenant/);
      // The admin API through the admin Service, never the API Service.
      expect(result.stdout).toMatch(/port-forward svc\/trawl-gateway-admin 8085:8085 &/);
      expect(result.stdout).toMatch(/POST localhost:8085\/admin\/v1\/tenants -H "Authorization: Bearer \$ADMIN_TOKEN"/);
      expect(result.stdout).not.toMatch(/localhost:8080\/admin/);
    });

    it('warns when traces are sent but no NetworkPolicy rule lets them out', async () => {
      const notes = async (...set: string[]) =>
        (
          await tool('helm', [
            'install',
            'trawl',
            chartDir,
            '--dry-run=client',
            '--namespace',
            'scrape',
            ...set.flatMap((s) => ['--set', s]),
          ])
        ).stdout;
      const warning = /WARNING: tracing\.otlpTracesEndpoint is set but networkPolicy\.tracing\.to is empty/;
      const endpoint = 'tracing.otlpTracesEndpoint=http://otel-collector.observability:4318/v1/traces';
      expect(await notes('networkPolicy.enabled=true', endpoint)).toMatch(warning);
      expect(
        await notes('networkPolicy.enabled=true', endpoint, 'networkPolicy.tracing.to[0].namespaceSelector.matchLabels.team=obs'),
      ).not.toMatch(warning);
      expect(await notes('networkPolicy.enabled=true')).not.toMatch(warning);
      expect(await notes(endpoint)).not.toMatch(warning);
    });
  });

  it('ships NATS values for the official chart with JetStream on file storage and a cluster of three', () => {
    const values = parse(readFileSync(resolve(chartDir, '..', 'values', 'nats.yaml'), 'utf8'));
    expect(values.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(values.config.jetstream).toMatchObject({ enabled: true, fileStore: { enabled: true } });
    expect(values.config.monitor).toMatchObject({ enabled: true, port: 8222 });
    // The exporter and its PodMonitor: the JetStream alerts and dashboard read nats_consumer_* (the
    // official chart runs prometheus-nats-exporter with -jsz=all -prefix=nats when JetStream is on).
    expect(values.promExporter).toMatchObject({ enabled: true, podMonitor: { enabled: true } });
    // The Trawl chart's defaults reach this install (release "nats" in namespace "nats").
    const trawlValues = parse(readFileSync(resolve(chartDir, 'values.yaml'), 'utf8'));
    expect(trawlValues.nats).toMatchObject({ url: 'nats://nats.nats.svc:4222', monitoringEndpoint: 'nats.nats.svc:8222' });
    // The chart's default stream replicas match the NATS cluster it documents.
    expect(parse(readFileSync(resolve(chartDir, 'values.yaml'), 'utf8')).nats.streamReplicas).toBe(3);
  });
});
