import { Registry } from 'prom-client';
import { TENANT_LABELS_MAX, UsageMetrics } from './usage-metrics';

async function series(registry: Registry, name: string): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []) as { labels: Record<string, string | number>; value: number }[];
}

describe(UsageMetrics.name, () => {
  describe('billed', () => {
    it('counts credits by product and tier and by tenant, and skips free charges', async () => {
      const registry = new Registry();
      const usage = new UsageMetrics(registry);
      usage.billed([
        { tenantId: 't1', credits: 5, product: 'crawl_page', tier: 'js_render' },
        { tenantId: 't1', credits: 1, product: 'crawl_page', tier: 'basic' },
        { tenantId: 't2', credits: 0, product: 'crawl_page', tier: 'basic' },
      ]);
      expect(await series(registry, 'trawl_credits_charged_total')).toEqual(
        expect.arrayContaining([
          { labels: { product: 'crawl_page', tier: 'js_render' }, value: 5 },
          { labels: { product: 'crawl_page', tier: 'basic' }, value: 1 },
        ]),
      );
      expect(await series(registry, 'trawl_tenant_credits_total')).toEqual([
        { labels: { tenant_id: 't1', product: 'crawl_page' }, value: 6 },
      ]);
    });
  });

  describe('requested', () => {
    it(`labels the first ${TENANT_LABELS_MAX} tenants by id and the rest as "other"`, async () => {
      const registry = new Registry();
      const usage = new UsageMetrics(registry);
      for (let i = 0; i < TENANT_LABELS_MAX + 5; i++) usage.requested(`t${i}`, 'fetch');
      usage.requested('t0', 'fetch', 2);
      const values = await series(registry, 'trawl_tenant_requests_total');
      expect(values).toHaveLength(TENANT_LABELS_MAX + 1);
      expect(values.find((v) => v.labels.tenant_id === 'other')?.value).toBe(5);
      expect(values.find((v) => v.labels.tenant_id === 't0')?.value).toBe(3);
    });
  });
});
