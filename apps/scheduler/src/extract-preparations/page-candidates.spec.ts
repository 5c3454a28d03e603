import { linksOf, PageCandidates, shapeOf } from './page-candidates';

describe(PageCandidates.name, () => {
  const allowAll = () => true;

  it('hands out the examples first, then pages shaped like them, then the rest', () => {
    const candidates = new PageCandidates('shop.test', ['http://shop.test/p/1', 'http://shop.test/p/2'], allowAll);
    candidates.offer('http://shop.test/about');
    candidates.offer('http://shop.test/p/77');
    candidates.offer('http://www.shop.test/p/9');
    const order = [candidates.next(), candidates.next(), candidates.next(), candidates.next(), candidates.next(), candidates.next()];
    expect(order).toEqual([
      'http://shop.test/p/1',
      'http://shop.test/p/2',
      'http://shop.test/p/77',
      'http://www.shop.test/p/9',
      'http://shop.test/about',
      undefined,
    ]);
  });

  it('refuses other sites, files, repeats, fragments of a page already seen and what robots.txt disallows', () => {
    const candidates = new PageCandidates('shop.test', [], (url) => !url.pathname.startsWith('/cart'));
    expect(candidates.offer('http://other.test/p/1')).toBe(false);
    expect(candidates.offer('http://shop.test/logo.png')).toBe(false);
    expect(candidates.offer('http://shop.test/cart')).toBe(false);
    expect(candidates.offer('http://shop.test/p/1#reviews')).toBe(true);
    expect(candidates.offer('http://shop.test/p/1')).toBe(false);
    candidates.markFetched('http://shop.test/p/2');
    expect(candidates.offer('http://shop.test/p/2')).toBe(false);
    expect(candidates.size).toBe(1);
  });
});

describe('shapeOf', () => {
  it('makes ids generic and keeps words', () => {
    expect(shapeOf(new URL('http://s.test/p/123'))).toBe(shapeOf(new URL('http://s.test/p/9')));
    expect(shapeOf(new URL('http://s.test/p/blue-shirt-42'))).toBe(shapeOf(new URL('http://s.test/p/red-hat-7')));
    expect(shapeOf(new URL('http://s.test/blog/hello'))).not.toBe(shapeOf(new URL('http://s.test/p/hello')));
  });
});

describe('linksOf', () => {
  it('resolves links against the page and its base, skipping scripts and mail', () => {
    const html =
      '<base href="/shop/"><a href="p/1">a</a><a href="javascript:void 0">b</a><a href="mailto:x@y.z">c</a><a href="https://o.test/">d</a>';
    expect(linksOf(html, 'http://s.test/index.html')).toEqual(['http://s.test/shop/p/1', 'https://o.test/']);
  });
});
