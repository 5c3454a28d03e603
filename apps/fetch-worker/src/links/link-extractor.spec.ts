import { MAX_URL_LENGTH } from '@trawl/egress';
import { extractLinks, extractTitledLinks, MAX_LINK_TEXT } from './link-extractor';

const PAGE = 'https://example.com/dir/page.html';
const SCOPE = 'example.com';

/** Links of a page on example.com whose body holds `body`. */
const linksIn = (body: string, pageUrl = PAGE, scope = SCOPE) => extractLinks(`<html><body>${body}</body></html>`, pageUrl, scope);

describe(extractLinks.name, () => {
  describe('resolving', () => {
    it('resolves relative links against the page URL', () => {
      expect(linksIn('<a href="about">a</a><a href="../up">b</a><a href="/root?q=1">c</a>').links).toEqual([
        'https://example.com/dir/about',
        'https://example.com/up',
        'https://example.com/root?q=1',
      ]);
    });

    it('keeps absolute links as written, normalised', () => {
      expect(linksIn('<a href="HTTPS://Example.COM:443/a/./b/../c">x</a>').links).toEqual(['https://example.com/a/c']);
    });

    it('resolves protocol-relative links with the page scheme', () => {
      expect(linksIn('<a href="//example.com/p">x</a>', 'http://example.com/').links).toEqual(['http://example.com/p']);
    });

    it('resolves against the final URL it is given (after redirects)', () => {
      expect(linksIn('<a href="next">x</a>', 'https://example.com/moved/here').links).toEqual(['https://example.com/moved/next']);
    });

    it('drops the fragment of a link to another page', () => {
      expect(linksIn('<a href="/guide#install">x</a>').links).toEqual(['https://example.com/guide']);
    });

    it('removes tracking parameters and keeps the others', () => {
      expect(linksIn('<a href="/p?utm_source=x&id=7&gclid=abc">x</a>').links).toEqual(['https://example.com/p?id=7']);
    });

    it('decodes entities in hrefs', () => {
      expect(linksIn('<a href="/search?a=1&amp;b=2">x</a><a href="&#x2F;slash&#47;ed">y</a>').links).toEqual([
        'https://example.com/search?a=1&b=2',
        'https://example.com/slash/ed',
      ]);
    });

    it('decodes hrefs as attributes: a legacy reference followed by "=" or a letter stays as written', () => {
      // HTML decodes `&copy` without its semicolon in text (©) but not in an attribute before `=`.
      expect(linksIn('<a href="/p?a=1&copy=2&amp;b=3&notit">x</a><base href="/ignored&amp;">').links).toEqual([
        'https://example.com/p?a=1&copy=2&b=3&notit',
      ]);
    });

    it('trims whitespace around hrefs and drops tabs and newlines inside them', () => {
      expect(linksIn('<a href="  \n/spaced\t/out  ">x</a>').links).toEqual(['https://example.com/spaced/out']);
    });

    it('encodes non-ASCII hosts and paths', () => {
      expect(linksIn('<a href="https://bücher.example.com/straße">x</a>').links).toEqual(['https://xn--bcher-kva.example.com/stra%C3%9Fe']);
    });
  });

  describe('<base href>', () => {
    it('resolves relative links against <base href>', () => {
      const html = '<html><head><base href="https://example.com/base/"></head><body><a href="rel">x</a><a href="/abs">y</a></body></html>';
      expect(extractLinks(html, PAGE, SCOPE).links).toEqual(['https://example.com/base/rel', 'https://example.com/abs']);
    });

    it('resolves a relative <base href> against the page URL', () => {
      expect(linksIn('<base href="/other/"><a href="rel">x</a>').links).toEqual(['https://example.com/other/rel']);
    });

    it('applies <base> to links written before it', () => {
      expect(linksIn('<a href="early">x</a><base href="https://example.com/b/">').links).toEqual(['https://example.com/b/early']);
    });

    it('uses the first <base href> and ignores later ones', () => {
      expect(linksIn('<base href="/one/"><base href="/two/"><a href="x">x</a>').links).toEqual(['https://example.com/one/x']);
    });

    it('skips a <base> without href when looking for the first one', () => {
      expect(linksIn('<base target="_blank"><base href="/two/"><a href="x">x</a>').links).toEqual(['https://example.com/two/x']);
    });

    it('ignores a <base href> that is not http(s)', () => {
      expect(linksIn('<base href="javascript:alert(1)"><a href="x">x</a>').links).toEqual(['https://example.com/dir/x']);
    });

    it('drops relative links when <base> points to another site', () => {
      expect(linksIn('<base href="https://cdn.other.net/"><a href="x">x</a><a href="https://example.com/y">y</a>').links).toEqual([
        'https://example.com/y',
      ]);
    });
  });

  describe('which elements count', () => {
    it('takes a[href] and area[href] in document order', () => {
      const html = '<a href="/1">1</a><map><area href="/2"></map><p><a href="/3">3</a></p>';
      expect(linksIn(html).links).toEqual(['https://example.com/1', 'https://example.com/2', 'https://example.com/3']);
    });

    it('reads tags and attributes in any case', () => {
      expect(linksIn('<A HREF="/upper">x</A>').links).toEqual(['https://example.com/upper']);
    });

    it('uses the first of repeated href attributes, as browsers do', () => {
      expect(linksIn('<a href="/first" href="/second">x</a>').links).toEqual(['https://example.com/first']);
    });

    it('ignores <link>, <img>, <script src> and anchors without href', () => {
      const html = '<link href="/style.css"><img src="/i.png"><script src="/s.js"></script><a name="n">n</a><a>none</a>';
      expect(linksIn(html).links).toEqual([]);
    });

    it('ignores links inside comments, scripts and styles', () => {
      const html = `<!-- <a href="/commented">x</a> --><script>document.write('<a href="/scripted">x</a>')</script><style>/* <a href="/styled"> */</style><a href="/real">r</a>`;
      expect(linksIn(html).links).toEqual(['https://example.com/real']);
    });

    it('survives malformed markup', () => {
      const html = '<div><a href="/one">one<div><a href=/two>two</p></span><a href="/three"';
      expect(linksIn(html).links).toEqual(['https://example.com/one', 'https://example.com/two', 'https://example.com/three']);
    });

    it('finds nothing in an empty page', () => {
      expect(extractLinks('', PAGE, SCOPE)).toEqual({ links: [], duplicateLinks: 0 });
    });
  });

  describe('links that are not followed', () => {
    it('drops fragment-only and empty hrefs, which point into the page itself', () => {
      expect(linksIn('<a href="#top">t</a><a href="#">h</a><a href="">e</a><a href=" ">s</a>')).toEqual({ links: [], duplicateLinks: 0 });
    });

    it('drops other schemes', () => {
      const html = [
        'mailto:a@example.com',
        'javascript:void(0)',
        'tel:+123',
        'data:text/html,hi',
        'ftp://example.com/f',
        'ws://example.com/',
      ]
        .map((href) => `<a href="${href}">x</a>`)
        .join('');
      expect(linksIn(html).links).toEqual([]);
    });

    it('drops hrefs that are not valid URLs', () => {
      expect(linksIn('<a href="http://[not-an-ip/x">x</a><a href="https://exa mple.com/">y</a>').links).toEqual([]);
    });

    it('drops links to other sites', () => {
      const html = ['https://other.com/', 'https://example.com.evil.net/', 'https://notexample.com/', 'https://example.org/']
        .map((href) => `<a href="${href}">x</a>`)
        .join('');
      expect(linksIn(html).links).toEqual([]);
    });

    it('keeps links to subdomains of the crawl site', () => {
      expect(linksIn('<a href="https://blog.example.com/post">b</a><a href="http://www.example.com/">w</a>').links).toEqual([
        'https://blog.example.com/post',
        'http://www.example.com/',
      ]);
    });

    it('stays within a registrable domain under a multi-label public suffix', () => {
      const html = '<a href="https://shop.example.co.uk/a">s</a><a href="https://other.co.uk/b">o</a>';
      expect(extractLinks(html, 'https://example.co.uk/', 'example.co.uk').links).toEqual(['https://shop.example.co.uk/a']);
    });

    it("stays on one customer's site under a shared-hosting suffix", () => {
      const html =
        '<a href="https://docs.alice.github.io/a">d</a><a href="https://bob.github.io/b">b</a><a href="https://github.io/">g</a>';
      expect(extractLinks(html, 'https://alice.github.io/', 'alice.github.io').links).toEqual(['https://docs.alice.github.io/a']);
    });

    it('keeps a link of exactly the maximum length', () => {
      const base = 'https://example.com/';
      const url = base + 'a'.repeat(MAX_URL_LENGTH - base.length);
      expect(linksIn(`<a href="${url}">x</a>`).links).toEqual([url]);
    });

    it('drops a link one character over the maximum length', () => {
      const base = 'https://example.com/';
      expect(linksIn(`<a href="${base}${'a'.repeat(MAX_URL_LENGTH - base.length + 1)}">x</a>`).links).toEqual([]);
    });

    it('drops a short relative link that resolves to more than the maximum length', () => {
      const pageUrl = `https://example.com/${'d'.repeat(MAX_URL_LENGTH - 30)}/`;
      expect(linksIn('<a href="a-relative-link-of-forty-characters-x">x</a>', pageUrl).links).toEqual([]);
    });

    it('drops a link that only grows past the maximum length when percent-encoded', () => {
      const base = 'https://example.com/';
      const href = base + 'é'.repeat((MAX_URL_LENGTH - base.length) / 2);
      expect(linksIn(`<a href="${href}">x</a>`).links).toEqual([]);
    });
  });

  describe('duplicates', () => {
    it('keeps the first of links differing only by scheme, www. or trailing slash, and counts the rest', () => {
      const html = ['http://example.com/a', 'https://www.example.com/a/', 'https://example.com/a', 'https://example.com/b']
        .map((href) => `<a href="${href}">x</a>`)
        .join('');
      expect(linksIn(html)).toEqual({ links: ['http://example.com/a', 'https://example.com/b'], duplicateLinks: 2 });
    });

    it('counts links that only differ by fragment or tracking parameters as duplicates', () => {
      expect(linksIn('<a href="/p">1</a><a href="/p#x">2</a><a href="/p?utm_medium=m">3</a>')).toEqual({
        links: ['https://example.com/p'],
        duplicateLinks: 2,
      });
    });

    it('treats different queries as different links', () => {
      expect(linksIn('<a href="/p?a=1">1</a><a href="/p?a=2">2</a>')).toEqual({
        links: ['https://example.com/p?a=1', 'https://example.com/p?a=2'],
        duplicateLinks: 0,
      });
    });

    it('does not count repeated links to other sites', () => {
      expect(linksIn('<a href="https://other.com/">1</a><a href="https://other.com/">2</a>').duplicateLinks).toBe(0);
    });

    it('counts a relative and an absolute link to the same page as one', () => {
      expect(linksIn('<a href="page2.html">1</a><a href="https://example.com/dir/page2.html">2</a>')).toEqual({
        links: ['https://example.com/dir/page2.html'],
        duplicateLinks: 1,
      });
    });
  });

  // Its speed is measured by `make bench` (every crawled page runs it), not timed here.
  it('handles a page with many links, each once', () => {
    const html = Array.from({ length: 20_000 }, (_, i) => `<li><a href="/item/${i % 10_000}">item ${i}</a></li>`).join('\n');
    const { links, duplicateLinks } = linksIn(html);
    expect(links).toHaveLength(10_000);
    expect(duplicateLinks).toBe(10_000);
  });
});

describe(extractTitledLinks.name, () => {
  const onlyHost = (hostname: string) => hostname === 'example.com' || hostname === 'www.example.com';
  const titled = (body: string) => extractTitledLinks(`<html><body>${body}</body></html>`, PAGE, onlyHost);

  it("gives each link's visible text, whitespace collapsed, nested markup included", () => {
    expect(titled('<a href="/a"> Red\n  <b>shoes</b> </a><a href="/b"><img src=x></a>')).toEqual([
      { url: 'https://example.com/a', text: 'Red shoes' },
      { url: 'https://example.com/b', text: '' },
    ]);
  });

  it('uses the alt text of an area, keeps duplicates with their own texts, and asks the scope by host', () => {
    const links = titled(
      '<map><area href="/m" alt="Map"></map><a href="/a">one</a><a href="/a/">two</a><a href="https://blog.example.com/x">blog</a>',
    );
    expect(links).toEqual([
      { url: 'https://example.com/m', text: 'Map' },
      { url: 'https://example.com/a', text: 'one' },
      { url: 'https://example.com/a/', text: 'two' },
    ]);
  });

  it("decodes character references in texts once, and in an area's alt text as an attribute", () => {
    expect(titled('<a href="/a">Fish &amp; Chips &amp;lt;3 &copy 2026</a><map><area href="/m" alt="A &amp;amp; B"></map>')).toEqual([
      { url: 'https://example.com/a', text: 'Fish & Chips &lt;3 © 2026' },
      { url: 'https://example.com/m', text: 'A &amp; B' },
    ]);
  });

  it('keeps a full text written with many references', () => {
    expect(titled(`<a href="/a">${'<b>&lt;&gt;</b>'.repeat(150)}</a>`)[0].text).toBe('<>'.repeat(100));
  });

  it('cuts a long text', () => {
    expect(titled(`<a href="/a">${'word '.repeat(200)}</a>`)[0].text.length).toBe(MAX_LINK_TEXT);
  });
});
