import { resolve } from 'node:path';
import { chartDir, repoRoot, tool } from './support/chart';
import { KubeApiServer, kubeApiServerMissing, startKubeApiServer } from './support/kube-apiserver';

jest.setTimeout(120_000);

const missing = kubeApiServerMissing();
if (missing) console.warn(`skipping the chart's API-server suite: ${missing}`);

/** Installs, upgrades and removes the chart on a real Kubernetes v1.20.2 API server, which validates and stores every object. */
(missing ? describe.skip : describe)('the trawl chart on a Kubernetes API server (v1.20.2)', () => {
  let server: KubeApiServer;
  const env = () => ({ KUBECONFIG: server.kubeconfig });
  const kubectl = (...args: string[]) => tool('kubectl', args, env());
  const helm = (...args: string[]) => tool('helm', args, env());
  const ok = async (promise: Promise<{ code: number; stdout: string; stderr: string }>) => {
    const result = await promise;
    if (result.code !== 0) throw new Error(result.stderr || result.stdout);
    return result.stdout;
  };
  const names = async (namespace: string, resource: string) =>
    (JSON.parse(await ok(kubectl('get', resource, '-n', namespace, '-o', 'json'))).items as { metadata: { name: string } }[])
      .map((i) => i.metadata.name)
      .sort();

  beforeAll(async () => {
    server = await startKubeApiServer();
    for (const ns of ['trawl-helm', 'trawl-k8s']) {
      await ok(kubectl('create', 'namespace', ns));
      // No controllers run here: the namespace's default ServiceAccount (which Pods need) is made by hand.
      await ok(kubectl('create', 'serviceaccount', 'default', '-n', ns));
    }
  });

  afterAll(() => server?.stop());

  it('installs without hooks (full values), picking policy/v1beta1 from the server, and reads every object back', async () => {
    await ok(helm('install', 'trawl', chartDir, '-n', 'trawl-helm', '--no-hooks', '-f', resolve(chartDir, 'ci/full-values.yaml')));
    const components = ['crawl-coordinator', 'fetch-worker', 'gateway', 'scheduler', 'webhook-dispatcher'].map((c) => `trawl-${c}`);
    expect(await names('trawl-helm', 'deployments')).toEqual(components);
    expect(await names('trawl-helm', 'services')).toEqual([...components, 'trawl-gateway-admin'].sort());
    expect(await names('trawl-helm', 'poddisruptionbudgets.v1beta1.policy')).toEqual(components);
    expect(await names('trawl-helm', 'networkpolicies')).toEqual(
      ['default-deny', 'backends', 'internet-egress', 'gateway-ingress', 'gateway-admin-ingress', 'metrics-ingress', 'test-egress']
        .map((p) => `trawl-${p}`)
        .sort(),
    );
    // The API Service (a LoadBalancer here) has no admin port; the admin Service is ClusterIP.
    const services = JSON.parse(await ok(kubectl('get', 'services', '-n', 'trawl-helm', '-o', 'json'))).items as {
      metadata: { name: string };
      spec: any;
    }[];
    const service = (name: string) => services.find((s) => s.metadata.name === name)!.spec;
    expect(service('trawl-gateway').type).toBe('LoadBalancer');
    expect(service('trawl-gateway').ports.map((p: { name: string }) => p.name)).toEqual(['http', 'proxy']);
    expect(service('trawl-gateway-admin')).toMatchObject({
      type: 'ClusterIP',
      ports: [{ name: 'admin', port: 8085, targetPort: 'admin', protocol: 'TCP' }],
    });
    const worker = JSON.parse(await ok(kubectl('get', 'deployment', 'trawl-fetch-worker', '-n', 'trawl-helm', '-o', 'json')));
    expect(worker.spec.template.spec.containers[0].args).toEqual(['fetch-worker']);
    expect(worker.spec.template.spec.securityContext.seccompProfile).toEqual({ type: 'RuntimeDefault' });
    // No KEDA API on this server: no ScaledObject, so the replica count is the chart's.
    expect(worker.spec.replicas).toBe(2);
    const status = await ok(helm('status', 'trawl', '-n', 'trawl-helm', '-o', 'json'));
    expect(JSON.parse(status).info.status).toBe('deployed');
  });

  it('upgrades to HPAs (autoscaling/v2beta2 on this server) and new values', async () => {
    await ok(
      helm(
        'upgrade',
        'trawl',
        chartDir,
        '-n',
        'trawl-helm',
        '--no-hooks',
        '-f',
        resolve(chartDir, 'ci/minimal-values.yaml'),
        '-f',
        resolve(chartDir, 'ci/hpa-values.yaml'),
        '--set',
        'logLevel=debug',
      ),
    );
    expect(await names('trawl-helm', 'horizontalpodautoscalers.v2beta2.autoscaling')).toEqual(['trawl-fetch-worker', 'trawl-gateway']);
    expect(await names('trawl-helm', 'networkpolicies')).toEqual([]);
    expect(await names('trawl-helm', 'poddisruptionbudgets.v1beta1.policy')).toEqual([]);
    const gateway = JSON.parse(await ok(kubectl('get', 'deployment', 'trawl-gateway', '-n', 'trawl-helm', '-o', 'json')));
    expect(gateway.spec.template.spec.containers[0].env).toContainEqual({ name: 'LOG_LEVEL', value: 'debug' });
    expect(JSON.parse(await ok(helm('status', 'trawl', '-n', 'trawl-helm', '-o', 'json'))).version).toBe(2);
  });

  it('has hooks (the migration Job, the helm test Pod) the server accepts', async () => {
    const hooks = await ok(
      tool('helm', [
        'template',
        'trawl',
        chartDir,
        '-n',
        'trawl-helm',
        '--show-only',
        'templates/migrations.yaml',
        '--show-only',
        'templates/tests/test-readyz.yaml',
      ]),
    );
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const file = resolve(mkdtempSync(resolve(require('node:os').tmpdir(), 'trawl-hooks-')), 'hooks.yaml');
    writeFileSync(file, hooks);
    const applied = await ok(kubectl('apply', '--dry-run=server', '-n', 'trawl-helm', '-f', file));
    expect(applied).toMatch(/job\.batch\/trawl-migrate created \(server dry run\)/);
    expect(applied).toMatch(/pod\/trawl-test-readyz created \(server dry run\)/);
  });

  it('uninstalls, leaving nothing of the release', async () => {
    await ok(helm('uninstall', 'trawl', '-n', 'trawl-helm'));
    expect(await names('trawl-helm', 'deployments')).toEqual([]);
    expect(await names('trawl-helm', 'services')).toEqual([]);
    expect(await names('trawl-helm', 'horizontalpodautoscalers.v2beta2.autoscaling')).toEqual([]);
  });

  it('takes deploy/k8s (the 1.20 overlay) with kubectl apply --dry-run=server, then for real, and reads it back', async () => {
    const overlay = resolve(repoRoot, 'deploy/k8s/overlays/kubernetes-1.20');
    const dry = await ok(kubectl('apply', '--dry-run=server', '-n', 'trawl-k8s', '-k', overlay));
    expect(dry).toMatch(/deployment\.apps\/trawl-gateway created \(server dry run\)/);
    await ok(kubectl('apply', '-n', 'trawl-k8s', '-k', overlay));
    const components = ['crawl-coordinator', 'fetch-worker', 'gateway', 'scheduler', 'webhook-dispatcher'].map((c) => `trawl-${c}`);
    expect(await names('trawl-k8s', 'deployments')).toEqual(components);
    expect(await names('trawl-k8s', 'services')).toEqual([...components, 'trawl-gateway-admin'].sort());
    expect(await names('trawl-k8s', 'poddisruptionbudgets.v1beta1.policy')).toEqual(components);
    expect((await names('trawl-k8s', 'jobs'))[0]).toMatch(/^trawl-migrate-[0-9a-f]{10}$/);
  });
});
