import { endToEndHeaders, formatAuthority, parseAbsoluteTarget, parseConnectTarget } from './proxy-target';

describe('proxy targets', () => {
  describe(parseConnectTarget.name, () => {
    it('parses host:port and bracketed IPv6, lower-casing the host', () => {
      expect(parseConnectTarget('Shop.Test:443')).toEqual({ host: 'shop.test', port: 443 });
      expect(parseConnectTarget('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
      expect(parseConnectTarget('10.0.0.1:80')).toEqual({ host: '10.0.0.1', port: 80 });
    });

    it('refuses a missing port, a port out of range, credentials and junk', () => {
      for (const bad of [undefined, '', 'shop.test', 'shop.test:0', 'shop.test:70000', 'u@shop.test:443', '[zz]:443', 'a b:1', '/x:1']) {
        expect(parseConnectTarget(bad)).toBeUndefined();
      }
    });
  });

  describe(parseAbsoluteTarget.name, () => {
    it('answers host, port (80 by default) and path with query', () => {
      expect(parseAbsoluteTarget('http://shop.test:8080/a/b?x=1')).toEqual({ host: 'shop.test', port: 8080, path: '/a/b?x=1' });
      expect(parseAbsoluteTarget('http://[::1]/')).toEqual({ host: '::1', port: 80, path: '/' });
    });

    it('refuses origin-form, https, other schemes and credentials', () => {
      for (const bad of [undefined, '/a', 'https://shop.test/', 'ftp://shop.test/', 'http://u:p@shop.test/', 'http://']) {
        expect(parseAbsoluteTarget(bad)).toBeUndefined();
      }
    });
  });

  describe(endToEndHeaders.name, () => {
    it('drops hop-by-hop fields and those Connection names, keeping order and case', () => {
      const raw = [
        'Host',
        'a.test',
        'Proxy-Connection',
        'keep-alive',
        'Connection',
        'keep-alive, X-Secret',
        'X-Secret',
        '1',
        'Accept',
        '*/*',
        'Transfer-Encoding',
        'chunked',
      ];
      expect(endToEndHeaders(raw)).toEqual(['Host', 'a.test', 'Accept', '*/*']);
    });
  });

  describe(formatAuthority.name, () => {
    it('brackets IPv6 literals only', () => {
      expect(formatAuthority({ host: '::1', port: 1 })).toBe('[::1]:1');
      expect(formatAuthority({ host: 'a.test', port: 2 })).toBe('a.test:2');
    });
  });
});
