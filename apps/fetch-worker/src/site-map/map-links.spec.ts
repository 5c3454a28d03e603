import { isSameSite } from '@trawl/egress';
import { MapLinks, mapScope } from './map-links';

const start = new URL('https://www.shop.test/');
const sameSite = (hostname: string) => isSameSite(hostname, 'shop.test');

describe(mapScope.name, () => {
  it("keeps the start's host, www. or not, and other subdomains only when asked", () => {
    const hostOnly = mapScope(start, false, sameSite);
    const site = mapScope(start, true, sameSite);
    const urls = ['https://shop.test/a', 'http://www.shop.test/b', 'https://blog.shop.test/c', 'https://other.test/d'].map(
      (u) => new URL(u).hostname,
    );
    expect(urls.map(hostOnly)).toEqual([true, true, false, false]);
    expect(urls.map(site)).toEqual([true, true, true, false]);
  });
});

describe(MapLinks.name, () => {
  it('normalises, drops out-of-scope and non-http URLs, and keeps the first of each crawl key', () => {
    const links = new MapLinks(mapScope(start, false, sameSite));
    const sitemap = links.openGroup();
    const page = links.openGroup();
    expect(links.offer(sitemap, 'https://shop.test/a?utm_source=x#top', 'sitemap', { lastmod: '2026-01-01' })).toBe(true);
    expect(links.offer(sitemap, 'https://other.test/b', 'sitemap')).toBe(false);
    expect(links.offer(sitemap, 'mailto:x@shop.test', 'sitemap')).toBe(false);
    expect(links.offer(sitemap, 'not a url', 'sitemap')).toBe(false);
    expect(links.offer(page, 'http://www.shop.test/a/', 'page', { title: 'A' })).toBe(false);
    expect(links.offer(page, 'https://shop.test/c', 'page', { title: 'C' })).toBe(true);
    expect(links.all()).toEqual([
      { url: 'https://shop.test/a', source: 'sitemap', lastmod: '2026-01-01', title: 'A' },
      { url: 'https://shop.test/c', source: 'page', title: 'C' },
    ]);
  });

  it('answers groups in the order they were opened, whatever order they filled in', () => {
    const links = new MapLinks(mapScope(start, false, sameSite));
    const first = links.openGroup();
    const second = links.openGroup();
    links.offer(second, 'https://shop.test/2', 'sitemap');
    links.offer(first, 'https://shop.test/1', 'sitemap');
    expect(links.all().map((link) => link.url)).toEqual(['https://shop.test/1', 'https://shop.test/2']);
  });
});
