import { SitemapEntry, SitemapReader } from './sitemap-reader';

function read(document: string, chunkSize = document.length): { pages: SitemapEntry[]; sitemaps: SitemapEntry[] } {
  const pages: SitemapEntry[] = [];
  const sitemaps: SitemapEntry[] = [];
  const reader = new SitemapReader({ onPage: (entry) => pages.push(entry), onSitemap: (entry) => sitemaps.push(entry) });
  const bytes = Buffer.from(document, 'utf8');
  for (let at = 0; at < bytes.length; at += chunkSize) reader.write(bytes.subarray(at, at + chunkSize));
  reader.end();
  return { pages, sitemaps };
}

describe(SitemapReader.name, () => {
  const urlset = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc> https://shop.test/a?x=1&amp;y=2 </loc><lastmod>2026-11-01</lastmod><priority>0.5</priority></url>
  <url><loc>https://shop.test/b</loc></url>
  <url><lastmod>2026-11-02</lastmod></url>
</urlset>`;

  it('tells each url of a urlset with its lastmod, entities decoded, entries without loc skipped', () => {
    expect(read(urlset).pages).toEqual([{ loc: 'https://shop.test/a?x=1&y=2', lastmod: '2026-11-01' }, { loc: 'https://shop.test/b' }]);
  });

  it('reads the same however the bytes are cut, also inside a multi-byte character', () => {
    const document = urlset.replace('/b<', '/bücher<');
    const whole = read(document);
    for (const size of [1, 3, 7, 64]) expect(read(document, size)).toEqual(whole);
    expect(whole.pages[1].loc).toBe('https://shop.test/bücher');
  });

  it('tells the sitemaps of an index, with prefixed names and any case', () => {
    const index = `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sm:sitemap><sm:loc>https://shop.test/s1.xml.gz</sm:loc><sm:lastmod>2026-10-01T10:00:00Z</sm:lastmod></sm:sitemap>
      <SITEMAP><LOC>https://shop.test/s2.xml</LOC></SITEMAP>
    </sm:sitemapindex>`;
    const { pages, sitemaps } = read(index);
    expect(pages).toEqual([]);
    expect(sitemaps).toEqual([
      { loc: 'https://shop.test/s1.xml.gz', lastmod: '2026-10-01T10:00:00Z' },
      { loc: 'https://shop.test/s2.xml' },
    ]);
  });

  it('ignores a loc outside an entry (an image sitemap extension keeps its own)', () => {
    const document = `<urlset><loc>https://shop.test/stray</loc><url><loc>https://shop.test/p</loc>
      <image:image><image:loc>https://shop.test/p.jpg</image:loc></image:image></url></urlset>`;
    expect(read(document).pages).toEqual([{ loc: 'https://shop.test/p' }]);
  });

  it('reads a text sitemap line by line, the last line without a newline too', () => {
    expect(read('https://shop.test/1\r\n\nhttps://shop.test/2\nhttps://shop.test/3', 5).pages.map((page) => page.loc)).toEqual([
      'https://shop.test/1',
      'https://shop.test/2',
      'https://shop.test/3',
    ]);
  });

  it('reads RSS items and Atom entries', () => {
    const rss = '<rss><channel><item><link>https://shop.test/r</link><pubDate>x</pubDate></item></channel></rss>';
    const atom =
      '<feed><entry><link rel="self" href="https://shop.test/self"/><link href="https://shop.test/a"/><updated>2026-01-01</updated></entry></feed>';
    expect(read(rss).pages).toEqual([{ loc: 'https://shop.test/r' }]);
    expect(read(atom).pages).toEqual([{ loc: 'https://shop.test/a', lastmod: '2026-01-01' }]);
  });
});
