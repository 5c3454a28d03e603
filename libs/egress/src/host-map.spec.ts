import { parseHostMap } from './host-map';

describe(parseHostMap.name, () => {
  it('maps each lowercase hostname to its address', () => {
    expect([...parseHostMap('shop.test=127.0.0.1,hooks.test=127.0.0.1')]).toEqual([
      ['shop.test', '127.0.0.1'],
      ['hooks.test', '127.0.0.1'],
    ]);
  });

  it('tolerates spaces, upper case, IPv6 addresses and empty entries', () => {
    expect([...parseHostMap(' Shop.Test = 127.0.0.1 , ,hooks.test=::1,')]).toEqual([
      ['shop.test', '127.0.0.1'],
      ['hooks.test', '::1'],
    ]);
  });

  it('gives an empty map for an empty spec', () => {
    expect(parseHostMap('').size).toBe(0);
  });

  it.each([
    ['shop.test', 'shop.test'],
    ['shop.test=localhost', 'shop.test=localhost'],
    ['=127.0.0.1', '=127.0.0.1'],
    ['shop.test=127.0.0.1=x', 'shop.test=127.0.0.1=x'],
    ['127.0.0.1=127.0.0.1', '127.0.0.1=127.0.0.1'],
    ['shop.test:8080=127.0.0.1', 'shop.test:8080=127.0.0.1'],
    ['http://shop.test=127.0.0.1', 'http://shop.test=127.0.0.1'],
    ['shop.test=127.0.0.1,shop.test=10.0.0.1', 'shop.test=10.0.0.1'],
  ])('throws an error naming the bad entry of %p', (spec, entry) => {
    expect(() => parseHostMap(spec)).toThrow(`"${entry}"`);
  });
});
