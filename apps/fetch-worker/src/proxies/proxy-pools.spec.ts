import { describeProxyPools, parseProxyPools, redactProxyUrl } from './proxy-pools';
import { ProxyError, ProxyErrorCode } from './proxy.errors';

function parseError(spec: string): ProxyError {
  try {
    parseProxyPools(spec);
  } catch (error) {
    return error as ProxyError;
  }
  throw new Error(`parseProxyPools accepted ${spec}`);
}

describe('parseProxyPools', () => {
  it('reads standard, premium and per-country premium pools in order', () => {
    const pools = parseProxyPools(
      ' standard=http://u:p@10.0.0.5:3128 | http://10.0.0.6:3128 ; premium=https://u:p@prem:8000;premium.US=http://us:8000;;',
    );
    expect(pools.standard.map((e) => e.url)).toEqual(['http://u:p@10.0.0.5:3128', 'http://10.0.0.6:3128']);
    expect(pools.premium.map((e) => [e.pool, e.url])).toEqual([['premium', 'https://u:p@prem:8000']]);
    expect([...pools.premiumByCountry.keys()]).toEqual(['us']);
    expect(pools.premiumByCountry.get('us')?.[0]).toMatchObject({ pool: 'premium.us', country: 'us', url: 'http://us:8000' });
  });

  it('gives each proxy an id made of its pool and a hash, stable across order and free of the URL', () => {
    const a = parseProxyPools('standard=http://u:secret@a:1|http://b:2');
    const b = parseProxyPools('standard=http://b:2|http://u:secret@a:1');
    expect(a.standard[0].id).toBe(b.standard[1].id);
    expect(a.standard[0].id).toMatch(/^standard#[0-9a-f]{12}$/);
    expect(a.standard[0].id).not.toBe(a.standard[1].id);
  });

  it('answers no pool at all for an empty or blank spec', () => {
    const pools = parseProxyPools('  ');
    expect(pools.standard).toEqual([]);
    expect(pools.premium).toEqual([]);
    expect(pools.premiumByCountry.size).toBe(0);
    expect(describeProxyPools(pools)).toContain('direct egress');
  });

  it.each([
    ['unknown pool name', 'cheap=http://a:1', 'pools are standard, premium'],
    ['country code of three letters', 'premium.usa=http://a:1', 'pools are standard, premium'],
    ['missing "="', 'http://user:hunter2@a:1', '(no "=")'],
    ['a pool twice', 'standard=http://a:1;standard=http://b:1', 'twice'],
    ['an empty pool', 'premium= | ', 'no proxy URL'],
    ['a proxy twice in a pool', 'standard=http://a:1|http://a:1', 'same proxy twice'],
    ['a socks proxy', 'premium=socks5://user:hunter2@a:1', 'proxy 1'],
    ['a URL that does not parse', 'premium=http://a:1|http://user:hunter2@:x', 'proxy 2'],
  ])('refuses %s with invalid_pools, without repeating any password', (_what, spec, message) => {
    const error = parseError(spec);
    expect(error).toBeInstanceOf(ProxyError);
    expect(error.code).toBe(ProxyErrorCode.InvalidPools);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('hunter2');
  });
});

describe('redactProxyUrl', () => {
  it('hides user and password but keeps scheme, host and port', () => {
    expect(redactProxyUrl('http://user:hunter2@proxy.example:8080')).toBe('http://***:***@proxy.example:8080');
    expect(redactProxyUrl('https://proxy.example')).toBe('https://proxy.example');
  });
});

describe('describeProxyPools', () => {
  it('counts proxies per pool and never shows a URL', () => {
    const text = describeProxyPools(parseProxyPools('standard=http://u:hunter2@a:1|http://b:1;premium.de=http://c:1'));
    expect(text).toBe('standard: 2, premium.de: 1');
  });
});
