import { MAX_INVALID_TASKS_LISTED } from '@trawl/contracts/http';
import { checkServiceParams } from './service-params';
import { checkTasks } from './task-checks';

describe(checkTasks.name, () => {
  it('keeps valid tasks in order with their fields, GET by default', () => {
    const { tasks, invalidCount } = checkTasks(
      [
        { url: 'https://shop.test/a', external_id: 'a-1', metadata: { sku: 7 } },
        { url: 'https://shop.test/form', method: 'POST', body: 'q=1', service_params: { custom_headers: 'true' } },
      ],
      {},
    );
    expect(invalidCount).toBe(0);
    expect(tasks).toEqual([
      { url: 'https://shop.test/a', method: 'GET', body: null, externalId: 'a-1', metadata: { sku: 7 }, serviceParams: null },
      {
        url: 'https://shop.test/form',
        method: 'POST',
        body: 'q=1',
        externalId: null,
        metadata: null,
        serviceParams: { custom_headers: 'true' },
      },
    ]);
  });

  it('names every bad task with its index, field and reason', () => {
    const { tasks, invalid, invalidCount } = checkTasks(
      [
        { url: 'https://shop.test/ok' },
        { url: 'ftp://shop.test/file' },
        { external_id: 'no-url' },
        { url: 'https://shop.test/b', body: 'x' },
        { url: 'https://shop.test/c', method: 'POST', body: 'x'.repeat(16 * 1024 + 1) },
        { url: 'https://shop.test/d', colour: 'red' },
        { url: 'https://shop.test/e', service_params: { wait: '1000' } },
        'https://shop.test/f',
      ],
      {},
    );
    expect(tasks.map((t) => t.url)).toEqual(['https://shop.test/ok']);
    expect(invalidCount).toBe(7);
    expect(invalid.map(({ index, field }) => [index, field])).toEqual([
      [1, 'url'],
      [2, 'url'],
      [3, 'body'],
      [4, 'body'],
      [5, 'colour'],
      [6, 'service_params.wait'],
      [7, 'task'],
    ]);
    expect(invalid.find((t) => t.index === 6)?.reason).toContain('js_render');
  });

  it('takes PUT tasks like POST ones: a body of at most 16 KiB, which a GET task may not carry', () => {
    const body = 'x'.repeat(16 * 1024);
    const { tasks, invalid } = checkTasks(
      [
        {
          url: 'https://shop.test/item/1',
          method: 'PUT',
          body,
          service_params: { custom_headers: { 'content-type': 'application/json' } },
        },
        { url: 'https://shop.test/item/2', method: 'PUT' },
        { url: 'https://shop.test/item/3', method: 'PUT', body: `${body}x` },
        { url: 'https://shop.test/item/4', method: 'GET', body: 'x' },
        { url: 'https://shop.test/item/5', method: 'PATCH', body: 'x' },
      ],
      {},
    );
    expect(tasks.map((t) => [t.url, t.method, t.body?.length ?? null])).toEqual([
      ['https://shop.test/item/1', 'PUT', 16 * 1024],
      ['https://shop.test/item/2', 'PUT', null],
    ]);
    expect(invalid.map(({ index, field }) => [index, field])).toEqual([
      [2, 'body'],
      [3, 'body'],
      [4, 'method'],
    ]);
    expect(invalid[0]?.reason).toBe('is over 16 KiB');
  });

  it('checks a task under the job parameters merged with its own, the task winning', () => {
    const job = { js_render: 'true', wait: '500' };
    expect(checkTasks([{ url: 'https://shop.test/a' }], job).invalidCount).toBe(0);
    const { invalid } = checkTasks([{ url: 'https://shop.test/a', service_params: { js_render: 'false' } }], job);
    expect(invalid[0]).toMatchObject({ index: 0, field: 'service_params.wait' });
  });

  it('reads plain tasks and unusual ones alike (the fast path never accepts what the schema refuses)', () => {
    const cases: unknown[] = [
      { url: 'https://shop.test/a', external_id: 'x'.repeat(256) },
      { url: 'https://shop.test/a', metadata: [1] },
      { url: 'https://shop.test/a', metadata: { note: 'x'.repeat(9_000) } },
      { url: 'https://shop.test/a', metadata: { nested: { deep: true } } },
      { url: 'https://shop.test/a', method: 'DELETE' },
      { url: 'https://shop.test/a', external_id: 7 },
      { url: 'https://shop.test/a', service_params: 'js_render' },
      { url: '' },
      { url: 'https://shop.test/a', metadata: { sku: 7, ok: true, none: null }, external_id: null, service_params: null },
    ];
    const verdicts = cases.map((task) => checkTasks([task], {}).invalid[0]?.field ?? 'ok');
    expect(verdicts).toEqual(['external_id', 'metadata', 'metadata', 'ok', 'method', 'external_id', 'service_params', 'url', 'ok']);
    expect(checkTasks([cases[3]], {}).tasks[0]?.metadata).toEqual({ nested: { deep: true } });
  });

  it(`lists at most ${MAX_INVALID_TASKS_LISTED} bad tasks but counts them all`, () => {
    const raw = Array.from({ length: 250 }, () => ({ url: 'not a url' }));
    const { invalid, invalidCount } = checkTasks(raw, {});
    expect(invalid).toHaveLength(MAX_INVALID_TASKS_LISTED);
    expect(invalidCount).toBe(250);
  });
});

describe(checkServiceParams.name, () => {
  it('reads booleans, numbers, lists and JSON values the way the Fetch API reads its query', () => {
    const checked = checkServiceParams('https://shop.test/', {
      js_render: true,
      wait: 1000,
      outputs: ['emails', 'links'],
      js_instructions: [{ click: '#more' }, { wait: 500 }],
      allowed_status_codes: [404, 410],
    });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(checked.query.options).toMatchObject({
      js_render: true,
      wait: 1000,
      outputs: ['emails', 'links'],
      js_instructions: [{ click: '#more' }, { wait: 500 }],
      allowed_status_codes: [404, 410],
    });
  });

  it('accepts custom_headers as an object of headers (a POST task sets its Content-Type there), as the executor does', () => {
    expect(checkServiceParams('https://shop.test/', { custom_headers: { 'Content-Type': 'application/json' } }).ok).toBe(true);
    expect(checkServiceParams('https://shop.test/', { custom_headers: ['x'] })).toMatchObject({
      ok: false,
      problem: { parameter: 'custom_headers' },
    });
    expect(checkServiceParams('https://shop.test/', { custom_headers: { 'bad name': 'x' } })).toMatchObject({
      ok: false,
      problem: { parameter: 'custom_headers' },
    });
  });

  it('refuses keys the Fetch API does not know, and the task fields', () => {
    expect(checkServiceParams('https://shop.test/', { colour: 'red' })).toMatchObject({ ok: false, problem: { parameter: 'colour' } });
    expect(checkServiceParams('https://shop.test/', { url: 'https://other.test/' })).toMatchObject({
      ok: false,
      problem: { parameter: 'url' },
    });
    expect(checkServiceParams('https://shop.test/', { apikey: 'x' })).toMatchObject({ ok: false, problem: { parameter: 'apikey' } });
  });
});
