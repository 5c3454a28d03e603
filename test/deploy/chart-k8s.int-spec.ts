import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { deployTools, find, parseObjects, repoRoot, tool } from './support/chart';
import { modelValidate, typedCheck } from './support/typed-check';

jest.setTimeout(60_000);

describe('deploy/k8s', () => {
  it("is the chart's default render, as deploy/k8s/generate.mjs writes it", () => {
    const check = () =>
      execFileSync('node', [resolve(repoRoot, 'deploy/k8s/generate.mjs'), '--check'], {
        stdio: 'pipe',
        env: { ...process.env, TRAWL_DEPLOY_TOOLS: deployTools() },
      });
    expect(check).not.toThrow();
  });

  it('builds with kustomize into valid objects: every service, GitOps migrations, no Helm hooks or Helm labels', async () => {
    const built = await tool('kubectl', ['kustomize', resolve(repoRoot, 'deploy/k8s/base')]);
    expect(built.code).toBe(0);
    const objects = parseObjects(built.stdout);
    expect(
      find(objects, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(['trawl-crawl-coordinator', 'trawl-fetch-worker', 'trawl-gateway', 'trawl-scheduler', 'trawl-webhook-dispatcher']);
    // The gateway's admin API and /metrics: a Service of their own, never a port of the API's.
    expect(find(objects, 'Service', 'trawl-gateway')[0].spec.ports.map((p: { name: string }) => p.name)).toEqual(['http', 'proxy']);
    expect(find(objects, 'Service', 'trawl-gateway-admin')[0].spec).toMatchObject({
      type: 'ClusterIP',
      ports: [{ name: 'admin', port: 8085, targetPort: 'admin' }],
    });
    const jobs = find(objects, 'Job');
    expect(jobs).toHaveLength(1);
    expect(jobs[0].metadata.name).toMatch(/^trawl-migrate-[0-9a-f]{10}$/);
    for (const object of objects) {
      expect([object.kind, object.metadata.annotations?.['helm.sh/hook']]).toEqual([object.kind, undefined]);
      expect(JSON.stringify(object)).not.toMatch(/helm\.sh\/chart|"Helm"/);
    }
    expect(modelValidate(objects)).toEqual([]);
    expect(typedCheck(objects)).toEqual([]);
  });

  it("has an overlay for 1.20 clusters that only changes the PodDisruptionBudgets' API version", async () => {
    const base = parseObjects((await tool('kubectl', ['kustomize', resolve(repoRoot, 'deploy/k8s/base')])).stdout);
    const old = parseObjects((await tool('kubectl', ['kustomize', resolve(repoRoot, 'deploy/k8s/overlays/kubernetes-1.20')])).stdout);
    expect(old.map((o) => (o.kind === 'PodDisruptionBudget' ? { ...o, apiVersion: 'policy/v1' } : o))).toEqual(base);
    expect(new Set(find(old, 'PodDisruptionBudget').map((o) => o.apiVersion))).toEqual(new Set(['policy/v1beta1']));
  });

  it('sets NATS_STREAM_REPLICAS 3 in base, and has an overlay for a single NATS server that only sets it to 1', async () => {
    const base = parseObjects((await tool('kubectl', ['kustomize', resolve(repoRoot, 'deploy/k8s/base')])).stdout);
    const single = parseObjects((await tool('kubectl', ['kustomize', resolve(repoRoot, 'deploy/k8s/overlays/single-nats')])).stdout);
    const replicas = (objects: typeof base) =>
      find(objects, 'Deployment').map((d) => [
        d.metadata.name,
        d.spec.template.spec.containers[0].env.find((e: any) => e.name === 'NATS_STREAM_REPLICAS')?.value,
      ]);
    expect(replicas(base).map(([, value]) => value)).toEqual(['3', '3', '3', '3', '3']);
    expect(replicas(single)).toEqual(replicas(base).map(([name]) => [name, '1']));
    // The strategic merge moves the patched entry to the front of env: compare the rest by name.
    const withoutReplicas = (objects: typeof base) =>
      objects.map((o) => {
        if (o.kind !== 'Deployment') return o;
        const copy = JSON.parse(JSON.stringify(o));
        for (const c of copy.spec.template.spec.containers) {
          c.env = c.env.filter((e: any) => e.name !== 'NATS_STREAM_REPLICAS').sort((a: any, b: any) => a.name.localeCompare(b.name));
        }
        return copy;
      });
    expect(withoutReplicas(single)).toEqual(withoutReplicas(base));
  });
});
