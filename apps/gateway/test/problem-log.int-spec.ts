import { randomUUID } from 'node:crypto';
import { startTestGateway, TestGateway } from './gateway-harness';

/** Support finds a refusal from the `instance` a tenant quotes: one kept log line per problem answer. */
describe('problem answers in the log (gateway)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({}, { captureLogs: true });
  });

  afterAll(async () => {
    await gw?.close();
  });

  const lineWith = (instance: string): Record<string, unknown> | undefined =>
    gw.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((entry) => entry.instance === instance);

  it('logs a 4xx at info with its instance, tenant, method, route pattern, status and code', async () => {
    const tenant = await gw.createTenant();
    const response = await gw.request('GET', `/v1/crawls/${randomUUID()}`, { key: tenant.api_key });
    expect(response.status).toBe(404);
    const entry = lineWith(response.body.instance);
    expect(entry).toMatchObject({
      level: 30,
      msg: 'request refused',
      instance: response.body.instance,
      tenant_id: tenant.tenant_id,
      method: 'GET',
      route: '/v1/crawls/:crawlId',
      status: 404,
      code: 'crawl_not_found',
    });
  });

  it('logs a Fetch refusal by route pattern and never writes the API key, in the query or in a header', async () => {
    const tenant = await gw.createTenant();
    const query = new URLSearchParams({ apikey: tenant.api_key, url: 'http://shop.test/', colour: 'red' });
    const refused = await fetch(`${gw.baseUrl}/v1/?${query.toString()}`);
    expect(refused.status).toBe(400);
    const { instance } = (await refused.json()) as { instance: string };
    expect(lineWith(instance)).toMatchObject({ tenant_id: tenant.tenant_id, method: 'GET', route: '/v1/', status: 400, code: 'REQS004' });

    const wrongKey = `${tenant.api_key.slice(0, -4)}0000`;
    const unauthenticated = await gw.request('GET', '/v1/crawls', { key: wrongKey });
    expect(unauthenticated.status).toBe(401);
    const entry = lineWith(unauthenticated.body.instance);
    expect(entry).toMatchObject({ route: '/v1/crawls', status: 401 });
    expect(entry).not.toHaveProperty('tenant_id');

    const log = gw.logLines.join('\n');
    expect(log).not.toContain(tenant.api_key);
    expect(log).not.toContain(wrongKey);
  });
});
