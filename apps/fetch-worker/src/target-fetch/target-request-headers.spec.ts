import { callerRequestHeaders } from './target-request-headers';

describe(callerRequestHeaders.name, () => {
  it('keeps the caller’s headers, named in lower case', () => {
    expect(callerRequestHeaders({ 'User-Agent': 'bot/1', 'Accept-Language': 'fr', 'X-Token': 't' }, false)).toEqual({
      'user-agent': 'bot/1',
      'accept-language': 'fr',
      'x-token': 't',
    });
  });

  it('never forwards hop-by-hop headers, host, length or accept-encoding', () => {
    const headers = callerRequestHeaders(
      {
        Host: 'evil.test',
        Connection: 'close',
        'Content-Length': '5',
        'Accept-Encoding': 'zstd',
        'Transfer-Encoding': 'chunked',
        TE: 'trailers',
      },
      false,
    );
    expect(headers).toEqual({});
  });

  it('types a body without a content type as a form, and keeps the caller’s type', () => {
    expect(callerRequestHeaders({}, true)['content-type']).toBe('application/x-www-form-urlencoded');
    expect(callerRequestHeaders({ 'Content-Type': 'application/json' }, true)['content-type']).toBe('application/json');
    expect(callerRequestHeaders({}, false)).not.toHaveProperty('content-type');
  });
});
