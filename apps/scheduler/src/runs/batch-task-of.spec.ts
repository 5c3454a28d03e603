import { ForbiddenDomains } from '@trawl/fetch-params';
import { batchTaskOf, type ClaimedTask, type RunDispatchContext } from './batch-task-of';

const claim = (serviceParams: Record<string, unknown>): ClaimedTask => ({
  seq: 1,
  attempt: 1,
  leaseUntilMs: Date.now() + 60_000,
  url: 'https://shop.test/p/1',
  method: 'GET',
  body: null,
  serviceParams,
});

const run = (
  planFeatures: string[],
  servedRecipes: RunDispatchContext['servedRecipes'] = new Map(),
  planProducts: string[] = ['fetch', 'batch', 'extract'],
): RunDispatchContext => ({
  runId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  tenantId: '3f0c2a5e-8d1b-4c7e-9a6f-1b2c3d4e5f60',
  jobParams: {},
  traceParent: null,
  captchaSolver: null,
  planFeatures,
  planProducts,
  forbidden: new ForbiddenDomains([]),
  timeoutMs: 30_000,
  maxBodyBytes: 1_000_000,
  servedRecipes,
});

describe(batchTaskOf.name, () => {
  it("sends a mode=auto task with the plan's tiers, whatever features the plan lacks", () => {
    const made = batchTaskOf(claim({ mode: 'auto' }), run(['premium_proxy']));
    expect(made).toMatchObject({ task: { auto_tiers: ['basic', 'premium'] } });
    const plain = batchTaskOf(claim({}), run(['premium_proxy']));
    expect('task' in plain && 'auto_tiers' in plain.task).toBe(false);
  });

  it('fails a mode=auto task with a proxy country at once with AUTH010 when the plan lacks premium_proxy', () => {
    expect(batchTaskOf(claim({ mode: 'auto', proxy_country: 'de' }), run(['js_render']))).toMatchObject({
      failed: { errorCode: 'AUTH010' },
    });
    expect(batchTaskOf(claim({ js_render: true }), run([]))).toMatchObject({ failed: { errorCode: 'AUTH010' } });
  });

  it('fails an extract task at once with AUTH012 when the plan lacks the extract product, and sends the same task without extract', () => {
    const served = new Map([['shop.test', { domain: 'shop.test', version: 4, needsRender: false }]]);
    expect(batchTaskOf(claim({ extract: 'auto' }), run([], served, ['fetch', 'batch']))).toMatchObject({
      failed: { errorCode: 'AUTH012', statusCode: 402 },
    });
    expect(batchTaskOf(claim({ autoparse: true }), run([], served, ['fetch', 'batch']))).toMatchObject({
      failed: { errorCode: 'AUTH012' },
    });
    expect(batchTaskOf(claim({}), run([], served, ['fetch', 'batch']))).toHaveProperty('task');
  });

  it('fails an extract task at once with REQS007 naming the domain when Extract does not serve it', () => {
    expect(batchTaskOf(claim({ extract: 'auto' }), run(['js_render']))).toMatchObject({
      failed: { errorCode: 'REQS007', statusCode: 403 },
    });
  });

  it('sends an extract task with the recipe of its domain, or fails it with REQS002 when the domain needs rendering', () => {
    const served = new Map([['shop.test', { domain: 'shop.test', version: 4, needsRender: false }]]);
    expect(batchTaskOf(claim({ extract: 'auto', css_extractor: '{"t":"h1"}' }), run([], served))).toMatchObject({
      task: { options: { extract: { domain: 'shop.test', version: 4 } } },
    });
    const rendered = new Map([['shop.test', { domain: 'shop.test', version: 1, needsRender: true }]]);
    expect(batchTaskOf(claim({ autoparse: true }), run(['js_render'], rendered))).toMatchObject({ failed: { errorCode: 'REQS002' } });
    expect(batchTaskOf(claim({ autoparse: true, js_render: true }), run(['js_render'], rendered))).toMatchObject({
      task: { options: { js_render: true, wait: 1_000, extract: { version: 1 } } },
    });
  });
});
