import { BROWSER_HEADERS, MOBILE_BROWSER_HEADERS } from '../page-fetch/http-engine';
import { DEFAULT_BODY_TYPE, targetRequestHeaders } from './target-request-headers';

describe(targetRequestHeaders.name, () => {
  it('sends Chrome’s navigation headers when the caller sends none', () => {
    expect(targetRequestHeaders({}, false)).toEqual(BROWSER_HEADERS);
  });

  it('sends Chrome on Android’s for device=mobile, and the caller’s still win', () => {
    expect(targetRequestHeaders({}, false, 'mobile')).toEqual(MOBILE_BROWSER_HEADERS);
    expect(MOBILE_BROWSER_HEADERS).toMatchObject({ 'sec-ch-ua-mobile': '?1', 'user-agent': expect.stringContaining(' Mobile Safari/') });
    expect(targetRequestHeaders({ 'User-Agent': 'bot/1' }, false, 'mobile')['user-agent']).toBe('bot/1');
  });

  it('lets the caller’s headers win, whatever their case', () => {
    const headers = targetRequestHeaders({ 'User-Agent': 'bot/1', 'Accept-Language': 'fr', 'X-Token': 't' }, false);
    expect(headers).toMatchObject({ 'user-agent': 'bot/1', 'accept-language': 'fr', 'x-token': 't' });
    expect(headers).not.toHaveProperty('User-Agent');
  });

  it('never forwards hop-by-hop headers, host, length or accept-encoding', () => {
    const headers = targetRequestHeaders(
      { Host: 'evil.test', Connection: 'close', 'Content-Length': '5', 'Accept-Encoding': 'zstd', 'Transfer-Encoding': 'chunked', TE: 'trailers' },
      false,
    );
    expect(headers).toEqual(BROWSER_HEADERS);
  });

  it('types a body without a content type as a form, and keeps the caller’s type', () => {
    expect(targetRequestHeaders({}, true)['content-type']).toBe(DEFAULT_BODY_TYPE);
    expect(targetRequestHeaders({ 'Content-Type': 'application/json' }, true)['content-type']).toBe('application/json');
    expect(targetRequestHeaders({}, false)).not.toHaveProperty('content-type');
  });
});
