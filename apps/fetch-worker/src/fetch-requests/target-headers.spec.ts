import { cookiePairs, targetHeaders } from './target-headers';

describe(targetHeaders.name, () => {
  it('prefixes every target header with Zr- in title case and adds the final URL', () => {
    expect(targetHeaders({ 'content-type': 'text/html', 'x-powered-by': 'php', etag: '"1"' }, 'http://a.test/b')).toEqual({
      'Zr-Content-Type': 'text/html',
      'Zr-X-Powered-By': 'php',
      'Zr-Etag': '"1"',
      'Zr-Final-Url': 'http://a.test/b',
    });
  });

  it('drops hop-by-hop and framing headers the worker undid', () => {
    const headers = targetHeaders(
      {
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        'content-encoding': 'br',
        'content-length': '10',
        upgrade: 'h2c',
      },
      'http://a.test/',
    );
    expect(headers).toEqual({ 'Zr-Final-Url': 'http://a.test/' });
  });

  it('gives the cookies set as Zr-Cookies name=value pairs, without attributes', () => {
    const headers = targetHeaders(
      { 'set-cookie': ['a=1; Path=/; HttpOnly', 'b=two; Expires=Wed, 21 Oct 2026 07:28:00 GMT'] },
      'http://a.test/',
    );
    expect(headers['Zr-Cookies']).toBe('a=1; b=two');
    expect(headers).not.toHaveProperty('Zr-Set-Cookie');
  });

  it('joins a repeated header with commas', () => {
    expect(targetHeaders({ vary: ['accept', 'cookie'] }, 'http://a.test/')['Zr-Vary']).toBe('accept, cookie');
  });
});

describe(cookiePairs.name, () => {
  it('keeps name=value of each line and skips lines without a name', () => {
    expect(cookiePairs(['x=1;Secure', '=nameless', 'novalue', ' y = 2 ; Path=/'])).toEqual(['x=1', 'y = 2']);
    expect(cookiePairs('solo=1')).toEqual(['solo=1']);
    expect(cookiePairs(undefined)).toEqual([]);
  });
});
