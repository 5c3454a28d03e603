import { parseRobotsTxt, robotsAllowingAll, robotsDisallowingAll } from './robots-txt';

const at = (path: string) => new URL(path, 'https://shop.test');

describe('parseRobotsTxt', () => {
  it('collects every Sitemap line, wherever it stands', () => {
    const robots = parseRobotsTxt(
      ['Sitemap: https://shop.test/a.xml', 'User-agent: *', 'sitemap: https://shop.test/b.xml.gz', 'Disallow: /x'].join('\n'),
    );
    expect(robots.sitemaps).toEqual(['https://shop.test/a.xml', 'https://shop.test/b.xml.gz']);
  });

  it('applies the group naming the crawler rather than the * group', () => {
    const robots = parseRobotsTxt(['User-agent: *', 'Disallow: /', '', 'User-agent: Trawl', 'Disallow: /private'].join('\n'));
    expect(robots.rulesFor('trawl').allows(at('/public'))).toBe(true);
    expect(robots.rulesFor('trawl').allows(at('/private/1'))).toBe(false);
    expect(robots.rulesFor('otherbot').allows(at('/public'))).toBe(false);
  });

  it('shares one group among consecutive user-agent lines and merges groups of one agent', () => {
    const robots = parseRobotsTxt(
      ['User-agent: a', 'User-agent: trawl', 'Disallow: /one', 'User-agent: trawl', 'Disallow: /two'].join('\n'),
    );
    const rules = robots.rulesFor('Trawl');
    expect([rules.allows(at('/one')), rules.allows(at('/two')), rules.allows(at('/three'))]).toEqual([false, false, true]);
  });

  it('lets the longest match decide, and allow win a tie', () => {
    const rules = parseRobotsTxt(
      ['User-agent: *', 'Disallow: /shop', 'Allow: /shop/public', 'Disallow: /p', 'Allow: /p'].join('\n'),
    ).rulesFor('trawl');
    expect(rules.allows(at('/shop/cart'))).toBe(false);
    expect(rules.allows(at('/shop/public/1'))).toBe(true);
    expect(rules.allows(at('/page'))).toBe(true);
  });

  it('understands * anywhere and $ at the end, and matches the query too', () => {
    const rules = parseRobotsTxt(['User-agent: *', 'Disallow: /*.pdf$', 'Disallow: /*?sort='].join('\n')).rulesFor('trawl');
    expect(rules.allows(at('/docs/a.pdf'))).toBe(false);
    expect(rules.allows(at('/docs/a.pdf?x=1'))).toBe(true);
    expect(rules.allows(at('/list?sort=price'))).toBe(false);
    expect(rules.allows(at('/list?page=2'))).toBe(true);
  });

  it('matches escaped and unescaped paths alike', () => {
    const rules = parseRobotsTxt('User-agent: *\nDisallow: /café\nDisallow: /a%2fb').rulesFor('trawl');
    expect(rules.allows(at('/café/1'))).toBe(false);
    expect(rules.allows(at('/a%2Fb'))).toBe(false);
  });

  it('reads an empty Disallow as allowing everything, and never disallows /robots.txt', () => {
    expect(parseRobotsTxt('User-agent: *\nDisallow:').rulesFor('trawl').allows(at('/x'))).toBe(true);
    expect(parseRobotsTxt('User-agent: *\nDisallow: /').rulesFor('trawl').allows(at('/robots.txt'))).toBe(true);
  });

  it("gives the group's Crawl-delay and ignores one that is not a number", () => {
    const robots = parseRobotsTxt(['User-agent: trawl', 'Crawl-delay: 2.5', 'User-agent: *', 'Crawl-delay: soon'].join('\n'));
    expect(robots.rulesFor('trawl').crawlDelaySeconds).toBe(2.5);
    expect(robots.rulesFor('other').crawlDelaySeconds).toBeUndefined();
  });

  it('skips comments, unknown fields and lines without a colon', () => {
    const rules = parseRobotsTxt('# hello\nUser-agent: * # all\nNoindex: /x\ngarbage\nDisallow: /y # not y').rulesFor('trawl');
    expect([rules.allows(at('/x')), rules.allows(at('/y'))]).toEqual([true, false]);
  });

  it('allows everything when no group applies', () => {
    expect(parseRobotsTxt('User-agent: other\nDisallow: /').rulesFor('trawl').allows(at('/'))).toBe(true);
  });
});

describe('robotsAllowingAll and robotsDisallowingAll', () => {
  it('answer as a missing and an unreadable robots.txt', () => {
    expect(robotsAllowingAll().rulesFor('trawl').allows(at('/x'))).toBe(true);
    expect(robotsDisallowingAll().rulesFor('trawl').allows(at('/x'))).toBe(false);
    expect(robotsDisallowingAll().rulesFor('trawl').allows(at('/robots.txt'))).toBe(true);
  });
});
