import { FetchParamsError } from './fetch-params.errors';
import { outputFormatOf } from './output-format';
import { taskFetchInputs } from './service-params';

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error as FetchParamsError;
  }
  throw new Error('accepted');
};

describe(taskFetchInputs.name, () => {
  it('merges job and task service_params, the task winning, with the Fetch API rules', () => {
    const inputs = taskFetchInputs(
      { url: 'https://shop.test/a', method: 'GET', body: null },
      { js_render: 'true', wait: '500', outputs: ['emails', 'links'] },
      { wait: 1000 },
    );
    expect(inputs.query.options).toMatchObject({ js_render: true, wait: 1000, outputs: ['emails', 'links'] });
    expect(inputs).toMatchObject({ url: 'https://shop.test/a', hostname: 'shop.test', method: 'GET', headers: {} });
    expect(inputs.bodyBase64).toBeUndefined();
  });

  it('sends a POST body with the Content-Type of custom_headers, without hop-by-hop or credential headers', () => {
    const inputs = taskFetchInputs(
      { url: 'https://shop.test/form', method: 'POST', body: '{"q":1}' },
      { custom_headers: { 'Content-Type': 'application/json', 'X-Api-Key': 'secret', Connection: 'close', 'X-Mine': 'yes' } },
      null,
    );
    expect(inputs.headers).toEqual({ 'content-type': 'application/json', 'x-mine': 'yes' });
    expect(Buffer.from(inputs.bodyBase64!, 'base64').toString()).toBe('{"q":1}');
  });

  it('gives a POST body without a type the Fetch API default, and a GET no content type', () => {
    expect(taskFetchInputs({ url: 'https://shop.test/f', method: 'POST', body: 'a=1' }, { custom_headers: 'true' }, null).headers).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(
      taskFetchInputs({ url: 'https://shop.test/f', method: 'GET', body: null }, { custom_headers: { 'content-type': 'text/plain' } }, null)
        .headers,
    ).toEqual({});
  });

  it('sends a PUT body as a POST one: with the Content-Type of custom_headers, or the Fetch API default', () => {
    const typed = taskFetchInputs(
      { url: 'https://shop.test/item/7', method: 'PUT', body: '{"stock":3}' },
      { custom_headers: { 'Content-Type': 'application/json' } },
      null,
    );
    expect(typed).toMatchObject({ method: 'PUT', headers: { 'content-type': 'application/json' } });
    expect(Buffer.from(typed.bodyBase64!, 'base64').toString()).toBe('{"stock":3}');
    const untyped = taskFetchInputs({ url: 'https://shop.test/item/7', method: 'PUT', body: 'stock=3' }, {}, null);
    expect(untyped.headers).toEqual({ 'content-type': 'application/x-www-form-urlencoded' });
    const empty = taskFetchInputs(
      { url: 'https://shop.test/item/7', method: 'PUT', body: null },
      { custom_headers: { 'content-type': 'text/plain' } },
      null,
    );
    expect(empty).toMatchObject({ method: 'PUT', headers: {} });
    expect(empty.bodyBase64).toBeUndefined();
  });

  it.each([
    [{ wait: '1000' }, 'wait'],
    [{ url: 'https://other.test/' }, 'url'],
    [{ custom_headers: ['x'] }, 'custom_headers'],
    [{ custom_headers: { 'bad name': 'x' } }, 'custom_headers'],
    [{ proxy_country: 'us' }, 'proxy_country'],
  ])('refuses %j with REQS004 naming %s', (params, parameter) => {
    const error = refusal(() => taskFetchInputs({ url: 'https://shop.test/', method: 'GET', body: null }, params, null));
    expect(error).toBeInstanceOf(FetchParamsError);
    expect(error).toMatchObject({ code: 'REQS004', extensions: { parameter } });
  });
});

describe(outputFormatOf.name, () => {
  const base = { js_render: true, premium_proxy: false, json_response: false, original_status: false };
  it.each([
    [{}, 'html'],
    [{ json_response: true, screenshot: { fullpage: false, format: 'png' as const } }, 'json'],
    [{ screenshot: { fullpage: true, format: 'jpeg' as const } }, 'jpeg'],
    [{ response_type: 'markdown' as const }, 'markdown'],
    [{ response_type: 'pdf' as const }, 'pdf'],
    [{ css_extractor: { t: 'h1' } }, 'json'],
    [{ outputs: ['emails' as const] }, 'json'],
  ])('%j answers %s', (options, format) => {
    expect(outputFormatOf({ ...base, ...options })).toBe(format);
  });
});
