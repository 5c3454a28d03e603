import { batchTaskBody, createJobBody, createJobBodyShallow } from './batch-jobs.schemas';

describe('createJobBody', () => {
  it('defaults to a regular closed job', () => {
    expect(createJobBody.parse({ tasks: [] })).toMatchObject({ type: 'regular', status: 'closed', service_params: {} });
  });

  it.each([
    [{ tasks: [], file_input_id: '6f1c2c1e-3b9b-4a57-9d8e-1e2f3a4b5c6d' }, 'file_input_id'],
    [{ type: 'scheduled', tasks: [] }, 'schedule'],
    [{ status: 'closed' }, 'tasks'],
  ])('refuses %j, naming `%s`, as its shallow form does', (body, field) => {
    for (const schema of [createJobBody, createJobBodyShallow]) {
      const parsed = schema.safeParse(body);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual([field]);
    }
  });

  it('holds each task to `BatchTask`, which the shallow form leaves to the gateway', () => {
    const body = { tasks: [{ url: 'https://shop.test/a', colour: 'red' }] };
    expect(createJobBody.safeParse(body).success).toBe(false);
    expect(createJobBodyShallow.parse(body).tasks).toEqual(body.tasks);
  });
});

describe('batchTaskBody', () => {
  it('takes a body only with POST or PUT, at most 16 KiB', () => {
    expect(batchTaskBody.parse({ url: 'https://shop.test/a' })).toMatchObject({ method: 'GET' });
    expect(batchTaskBody.safeParse({ url: 'https://shop.test/a', body: 'x' }).error?.issues[0]?.path).toEqual(['body']);
    expect(batchTaskBody.safeParse({ url: 'https://shop.test/a', method: 'PUT', body: 'x'.repeat(16 * 1024 + 1) }).success).toBe(false);
  });
});
