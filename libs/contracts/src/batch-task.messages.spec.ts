import { batchTaskV1, fetchRequestV1 } from './index';

const task = (method: string) => ({
  v: 1,
  run_id: '3f1c2b4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  seq: 1,
  attempt: 1,
  tenant_id: '9a8b7c6d-5e4f-4a3b-8c1d-0e9f8a7b6c5d',
  url: 'https://shop.test/item/7',
  method,
  headers: { 'content-type': 'application/json' },
  body_base64: Buffer.from('{"stock":3}').toString('base64'),
  options: { js_render: false, premium_proxy: false, json_response: false, original_status: false },
  timeout_ms: 170_000,
  lease_until: 1_900_000_000_000,
  max_body_bytes: 10 * 1024 * 1024,
});

describe('batchTaskV1', () => {
  it.each(['GET', 'POST', 'PUT'])('carries a %s task, a method a Fetch request takes too', (method) => {
    expect(batchTaskV1.parse(task(method)).method).toBe(method);
    expect(fetchRequestV1.shape.method.options).toContain(method);
  });

  it('refuses any other method', () => {
    expect(batchTaskV1.safeParse(task('PATCH')).success).toBe(false);
  });
});
