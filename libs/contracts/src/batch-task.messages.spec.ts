import {
  batchTaskMsgId,
  batchTasksV1,
  batchTaskV1,
  batchWorkMessageV1,
  fetchRequestV1,
  MAX_PAGES_PER_TASK_MESSAGE,
  PAGES_HEADER,
  taskMessages,
  type BatchTaskV1,
} from './index';

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

describe('batch tasks several to a message', () => {
  const claims = [1, 2, 3].map((seq) => batchTaskV1.parse({ ...task('GET'), seq, attempt: 2 }));
  const form = { task: (t: BatchTaskV1) => t, msgId: batchTaskMsgId };

  it('reads a message of several and a task alone from the same stream, each as it was sent', () => {
    const [several, alone] = taskMessages(claims, 'test.batch.task.v1', 2, form);
    const read = batchWorkMessageV1.parse(several.payload);
    expect('tasks' in read && read.tasks.map((t) => t.seq)).toEqual([1, 2]);
    expect(several.headers?.[PAGES_HEADER]).toBe('2');
    expect(several.msgId).toBe(`${batchTaskMsgId(claims[0])}+2`);
    expect(batchWorkMessageV1.parse(alone.payload)).toEqual(claims[2]);
    expect(alone.msgId).toBe(batchTaskMsgId(claims[2]));
    expect(alone.headers).toBeUndefined();
  });

  it('names a new claim of the same tasks differently, so JetStream does not drop it as a repeat', () => {
    const again = claims.map((t) => ({ ...t, lease_until: t.lease_until + 600_000 }));
    expect(taskMessages(again, 's', 8, form)[0].msgId).not.toBe(taskMessages(claims, 's', 8, form)[0].msgId);
    expect(taskMessages(claims, 's', 8, form)).toEqual(taskMessages(claims, 's', 8, form));
  });

  it('never puts more than a message may carry in one', () => {
    const many = Array.from({ length: MAX_PAGES_PER_TASK_MESSAGE + 1 }, (_, i) => ({ ...claims[0], seq: i + 1 }));
    const messages = taskMessages(many, 's', 1_000, form);
    expect(messages.map((m) => m.headers?.[PAGES_HEADER])).toEqual([String(MAX_PAGES_PER_TASK_MESSAGE), undefined]);
    expect(batchTasksV1.safeParse({ v: 1, tasks: [claims[0]] }).success).toBe(false);
  });
});
