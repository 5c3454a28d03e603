import { parseDocument } from 'htmlparser2';
import { articleOf } from './article';
import { readerHtml } from './reader-html';

const PARAGRAPHS = [
  'The harbour authority confirmed on Monday that the new ferry terminal will open in June, two years later than first planned.',
  'Delays came from the sea wall, which had to be rebuilt after engineers found the old foundations far weaker than the survey had said.',
  'Passengers will board from a covered hall with room for six hundred people, and the old quay will become a public promenade.',
];

function readerOf(html: string): string {
  return readerHtml(parseDocument(html, { decodeEntities: true }));
}

describe(readerHtml.name, () => {
  it('drops scripts, styles, comments and vector graphics but keeps JSON-LD, which Readability reads', () => {
    const html = readerOf(`<html><head><style>p{color:red}</style><script>track()</script>
      <script type="application/ld+json">{"@type":"NewsArticle","headline":"A < B & C"}</script></head>
      <body><!-- ad slot --><svg><path d="M0 0"/></svg><p>Text</p><noscript><img src="pixel.gif"></noscript></body></html>`);
    expect(html).not.toMatch(/color:red|track\(\)|ad slot|<svg|<path|<noscript|pixel\.gif/);
    expect(html).toContain('<script type="application/ld+json">{"@type":"NewsArticle","headline":"A < B & C"}</script>');
    expect(html).toContain('<p>Text</p>');
  });

  it('drops what Readability would find hidden, and keeps a fallback image Readability keeps', () => {
    const html = readerOf(`<body>
      <div hidden>one</div><div style="color: red; display: none">two</div><div style="visibility:hidden">three</div>
      <div aria-hidden="true">four</div><span aria-hidden="true" class="mwe-math-fallback-image-inline">five</span>
      <div style="display:block">six</div></body>`);
    expect(html).not.toMatch(/one|two|three|four/);
    expect(html).toMatch(/five/);
    expect(html).toMatch(/six/);
  });

  it('keeps the attributes Readability reads, and every attribute of an image', () => {
    const html = readerOf(`<div id="main" class="story" data-track="x" onclick="go()" style="margin:0" role="main" itemprop="articleBody">
      <a href="/a" rel="author" data-id="7">Jane</a><img data-src="/lazy.jpg" data-caption="c" alt="A"></div>`);
    expect(html).toContain('<div id="main" class="story" role="main" itemprop="articleBody">');
    expect(html).toContain('<a href="/a" rel="author">Jane</a>');
    expect(html).toContain('<img data-src="/lazy.jpg" data-caption="c" alt="A">');
  });

  it('escapes text and attribute values so the page parses back to the same text', () => {
    const html = readerOf('<p title="x">Fish &amp; chips &lt;b&gt;not bold&lt;/b&gt;</p><a href="/q?a=1&amp;b=&quot;2&quot;">link</a>');
    const again = parseDocument(html, { decodeEntities: true });
    const paragraph = again.children.find((node) => 'name' in node && node.name === 'p');
    expect(paragraph && 'children' in paragraph ? paragraph.children.map((node) => ('data' in node ? node.data : '')).join('') : '').toBe(
      'Fish & chips <b>not bold</b>',
    );
    expect(html).toContain('href="/q?a=1&amp;b=&quot;2&quot;"');
  });

  it('keeps whitespace inside text, where Readability measures it, and drops it between table rows and list items', () => {
    const html = readerOf('<ul>\n  <li>a  b</li>\n  <li>c</li>\n</ul><table>\n<tr>\n<td> d </td>\n</tr>\n</table><p>e <b>f</b> g</p>');
    expect(html).toContain('<ul><li>a  b</li><li>c</li></ul>');
    expect(html).toContain('<table><tr><td> d </td></tr></table>');
    expect(html).toContain('<p>e <b>f</b> g</p>');
  });

  it('writes a page nested 20,000 deep without running out of stack', () => {
    const depth = 20_000;
    const html = readerOf(`${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`);
    expect(html.match(/<div>/g)).toHaveLength(depth);
    expect(html).toContain('deep');
  });
});

describe('articleOf over the reader HTML', () => {
  it('reads the same article from a page full of scripts, hidden menus and tracking attributes as from a clean one', () => {
    const article = (noise: boolean): string =>
      `<html><head><title>Ferry terminal opens in June</title><meta property="og:type" content="article">${noise ? '<script>'.concat('x();'.repeat(5000), '</script><style>.a{}</style>') : ''}</head>
      <body><nav>${noise ? '<ul hidden><li><a href="/1">Hidden menu</a></li></ul>' : ''}<a href="/">Home</a></nav>
      <article${noise ? ' data-analytics="story" style="padding:0"' : ''}><h1>Ferry terminal opens in June</h1>
      ${PARAGRAPHS.map((paragraph) => `<p${noise ? ' data-para="1"' : ''}>${paragraph}</p>${noise ? '<div aria-hidden="true">Advertisement</div>' : ''}`).join('\n')}
      </article></body></html>`;
    const url = new URL('https://news.example.com/ferry');
    const clean = articleOf(article(false), url);
    expect(clean?.body).toBe(PARAGRAPHS.join('\n\n'));
    expect(articleOf(article(true), url)).toEqual(clean);
  });
});
