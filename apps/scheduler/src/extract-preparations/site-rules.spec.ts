import { OPEN_SITE, parseRobotsTxt, parseSitemap } from './site-rules';

describe('parseRobotsTxt', () => {
  it('applies the group for * with the longest matching rule, Allow winning a tie', () => {
    const rules = parseRobotsTxt(
      [
        'User-agent: *',
        'Disallow: /cart',
        'Disallow: /p/*/reviews$',
        'Allow: /cart/help',
        'Crawl-delay: 2',
        'Sitemap: https://shop.test/sitemap.xml',
      ].join('\n'),
      'TrawlBot',
    );
    expect(rules.allows('/p/1')).toBe(true);
    expect(rules.allows('/cart/checkout')).toBe(false);
    expect(rules.allows('/cart/help')).toBe(true);
    expect(rules.allows('/p/12/reviews')).toBe(false);
    expect(rules.allows('/p/12/reviews/2')).toBe(true);
    expect(rules.crawlDelayMs).toBe(2000);
    expect(rules.sitemaps).toEqual(['https://shop.test/sitemap.xml']);
  });

  it('prefers the group naming our agent over the one for *', () => {
    const rules = parseRobotsTxt(
      'User-agent: *\nDisallow: /\n\nUser-agent: trawlbot\nUser-agent: other\nDisallow: /private',
      'TrawlBot/1.0',
    );
    expect(rules.allows('/p/1')).toBe(true);
    expect(rules.allows('/private/x')).toBe(false);
  });

  it('allows everything when no group applies, and OPEN_SITE allows everything', () => {
    expect(parseRobotsTxt('User-agent: googlebot\nDisallow: /', 'TrawlBot').allows('/x')).toBe(true);
    expect(OPEN_SITE.allows('/anything')).toBe(true);
  });
});

describe('parseSitemap', () => {
  it('reads the locations of a url set and tells an index apart', () => {
    const set = parseSitemap('<urlset><url><loc>https://s.test/a?x=1&amp;y=2</loc></url><url><loc> https://s.test/b </loc></url></urlset>');
    expect(set).toEqual({ isIndex: false, locations: ['https://s.test/a?x=1&y=2', 'https://s.test/b'] });
    expect(parseSitemap('<sitemapindex><sitemap><loc><![CDATA[https://s.test/s1.xml]]></loc></sitemap></sitemapindex>')).toEqual({
      isIndex: true,
      locations: ['https://s.test/s1.xml'],
    });
  });
});
