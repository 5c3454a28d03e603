import { targetHeaders } from './forwarded-headers';

describe(targetHeaders.name, () => {
  const incoming = {
    host: 'api.trawl.test',
    'x-api-key': 'secret',
    authorization: 'Bearer secret',
    connection: 'keep-alive, x-hop',
    'x-hop': '1',
    'keep-alive': 'timeout=5',
    'x-forwarded-for': '10.0.0.1',
    traceparent: '00-abc',
    'content-length': '12',
    'user-agent': 'MyBot/1.0',
    'accept-language': 'de',
    cookie: 'a=1',
    'content-type': 'application/json',
  };

  it('forwards the caller headers, minus hop-by-hop, our credentials, host and ours (the target Authorization goes), with custom_headers', () => {
    expect(targetHeaders(incoming, { customHeaders: true, hasBody: false })).toEqual({
      authorization: 'Bearer secret',
      'user-agent': 'MyBot/1.0',
      'accept-language': 'de',
      cookie: 'a=1',
    });
  });

  it('forwards nothing but the body type without custom_headers', () => {
    expect(targetHeaders(incoming, { customHeaders: false, hasBody: false })).toEqual({});
    expect(targetHeaders(incoming, { customHeaders: false, hasBody: true })).toEqual({ 'content-type': 'application/json' });
  });

  it('gives a body the form content type when the caller named none', () => {
    expect(targetHeaders({}, { customHeaders: false, hasBody: true })).toEqual({
      'content-type': 'application/x-www-form-urlencoded',
    });
  });
});
