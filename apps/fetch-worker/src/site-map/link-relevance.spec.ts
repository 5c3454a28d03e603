import { parseSearch, rankByRelevance, relevance } from './link-relevance';

describe(parseSearch.name, () => {
  it('splits on anything not a letter or digit, lower-cases, drops repeats, keeps the phrase', () => {
    expect(parseSearch('Red  shoes, RED!')).toEqual({ terms: ['red', 'shoes'], phrase: 'red shoes' });
    expect(parseSearch('Größe')).toEqual({ terms: ['größe'] });
    expect(parseSearch(' -- ')).toEqual({ terms: [] });
  });
});

describe(relevance.name, () => {
  const query = parseSearch('red shoes');

  it('is 0 for a link where no word appears', () => {
    expect(relevance({ url: 'https://shop.test/blue/hats', title: 'Blue hats' }, query)).toBe(0);
  });

  it('weighs link text over path over host and query', () => {
    const inTitle = relevance({ url: 'https://shop.test/p/1', title: 'Shoes' }, query);
    const inPath = relevance({ url: 'https://shop.test/shoes' }, query);
    const inQuery = relevance({ url: 'https://shop.test/list?q=shoes' }, query);
    expect(inTitle).toBeGreaterThan(inPath);
    expect(inPath).toBeGreaterThan(inQuery);
    expect(inQuery).toBeGreaterThan(0);
  });

  it('rewards the words together, across separators and escapes in the path', () => {
    const together = relevance({ url: 'https://shop.test/red-shoes' }, query);
    const apart = relevance({ url: 'https://shop.test/shoes/red' }, query);
    expect(together).toBeGreaterThan(apart);
    expect(relevance({ url: 'https://shop.test/Red%20Shoes' }, query)).toBe(together);
  });
});

describe(rankByRelevance.name, () => {
  it('keeps only matches, best first, then shallower, then in the order found', () => {
    const links = [
      { url: 'https://shop.test/about' },
      { url: 'https://shop.test/shoes/red/42' },
      { url: 'https://shop.test/shoes' },
      { url: 'https://shop.test/x', title: 'Red shoes on sale' },
      { url: 'https://shop.test/shoes/' + 'b' },
    ];
    expect(rankByRelevance(links, parseSearch('red shoes')).map((link) => link.url)).toEqual([
      'https://shop.test/x',
      'https://shop.test/shoes/red/42',
      'https://shop.test/shoes',
      'https://shop.test/shoes/b',
    ]);
  });
});
