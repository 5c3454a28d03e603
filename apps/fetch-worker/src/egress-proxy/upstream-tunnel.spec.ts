import { connectRequestHead, parseUpstreamProxy, statusOfResponseHead } from './upstream-tunnel';

describe('upstream tunnel', () => {
  describe(parseUpstreamProxy.name, () => {
    it('decodes percent-encoded credentials into a Basic authorization', () => {
      const upstream = parseUpstreamProxy('http://us%40er:pa%3Ass@proxy.test:3128');
      expect(upstream).toEqual({
        protocol: 'http:',
        host: 'proxy.test',
        port: 3128,
        authorization: `Basic ${Buffer.from('us@er:pa:ss').toString('base64')}`,
      });
    });

    it('defaults the port by scheme and leaves authorization out without credentials', () => {
      expect(parseUpstreamProxy('http://proxy.test')).toEqual({ protocol: 'http:', host: 'proxy.test', port: 80 });
      expect(parseUpstreamProxy('https://proxy.test').port).toBe(443);
    });

    it('refuses other schemes and unparsable URLs without repeating them', () => {
      expect(() => parseUpstreamProxy('socks5://u:secret@p.test:1')).toThrow(/socks5:/);
      expect(() => parseUpstreamProxy('not a url secret')).toThrow('Upstream proxy URL does not parse');
    });
  });

  describe(connectRequestHead.name, () => {
    it('asks for the target with Host and, when given, Proxy-Authorization', () => {
      expect(
        connectRequestHead({ host: '93.184.215.14', port: 443 }, { protocol: 'http:', host: 'p', port: 1, authorization: 'Basic eDp5' }),
      ).toBe('CONNECT 93.184.215.14:443 HTTP/1.1\r\nHost: 93.184.215.14:443\r\nProxy-Authorization: Basic eDp5\r\n\r\n');
      expect(connectRequestHead({ host: '::1', port: 80 }, { protocol: 'http:', host: 'p', port: 1 })).toBe(
        'CONNECT [::1]:80 HTTP/1.1\r\nHost: [::1]:80\r\n\r\n',
      );
    });
  });

  describe(statusOfResponseHead.name, () => {
    it('reads the status of an HTTP/1.x status line only', () => {
      expect(statusOfResponseHead('HTTP/1.1 200 Connection established\r\nX: y')).toBe(200);
      expect(statusOfResponseHead('HTTP/1.0 407 Proxy Authentication Required')).toBe(407);
      expect(statusOfResponseHead('SSH-2.0-OpenSSH')).toBeUndefined();
    });
  });
});
