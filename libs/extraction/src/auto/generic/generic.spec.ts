import { load } from 'cheerio';
import { articleOf } from './article';
import { articleText } from './article-text';
import { genericRecord } from './generic-record';
import { parseHTML } from 'linkedom';

const PARAGRAPHS = [
  'The city council voted on Tuesday to expand the riverside park by twelve hectares, ending a debate that has run for most of the decade.',
  'Supporters said the new wetlands would protect the old town from floods, which have grown more frequent since the dam upstream was rebuilt.',
  'Opponents argued that the money, close to forty million euros over five years, would be better spent on the tram line promised in the last election.',
  'Work on the first section is due to start in the spring, once the contracts for earth moving and planting have been signed.',
];

/** A news page with the boilerplate real ones carry: navigation, related links, comments, footer. */
function newsPage(head: string): string {
  return `<!doctype html><html lang="en"><head><title>Council expands riverside park | Daily Example</title>${head}</head>
  <body>
    <header><nav><a href="/">Home</a> <a href="/politics">Politics</a> <a href="/sport">Sport</a> <a href="/weather">Weather</a></nav></header>
    <main><article>
      <h1>Council expands riverside park</h1>
      <p class="byline">By <a rel="author" href="/staff/jane-doe">Jane Doe</a></p>
      ${PARAGRAPHS.map((paragraph) => `<p>${paragraph}</p>`).join('\n')}
    </article>
    <aside class="related"><h3>Related</h3><ul><li><a href="/a">Tram line delayed again</a></li><li><a href="/b">Flood defences tested</a></li></ul></aside>
    <section id="comments"><h3>Comments</h3><div class="comment">First!</div><div class="comment">Great news for the town.</div></section>
    </main>
    <footer><p>© 2024 Daily Example. All rights reserved.</p><a href="/privacy">Privacy</a> <a href="/terms">Terms</a></footer>
  </body></html>`;
}

const PAGE_URL = new URL('https://news.example.com/2024/03/council-park');

describe(articleOf.name, () => {
  it('reads headline, author and body without the boilerplate', () => {
    const article = articleOf(newsPage('<meta property="og:type" content="article">'), PAGE_URL);
    expect(article).toBeDefined();
    expect(article?.headline).toMatch(/Council expands riverside park/);
    expect(article?.author).toBe('Jane Doe');
    expect(article?.body).toBe(PARAGRAPHS.join('\n\n'));
  });

  it('reads the published date from the page metadata', () => {
    const article = articleOf(
      newsPage(`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
        "headline":"Council expands riverside park","datePublished":"2024-03-05T09:30:00+01:00"}</script>`),
      PAGE_URL,
    );
    expect(article?.date_published).toBe('2024-03-05T09:30:00+01:00');
  });

  it('answers undefined for a page that is not an article', () => {
    const shop = `<html><head><title>Kettle</title></head><body><nav><a href="/">Home</a></nav>
      <h1>Kettle 2000</h1><span class="price">€49.99</span><button>Add to cart</button></body></html>`;
    expect(articleOf(shop, new URL('https://shop.example.com/p/1'))).toBeUndefined();
  });
});

describe(articleText.name, () => {
  it('separates blocks by blank lines and collapses whitespace inside them', () => {
    const { document } = parseHTML(
      '<div id="x"><h2>Title</h2><p>One\n   two<br>three</p><ul><li>a</li><li>b</li></ul>tail<script>x()</script></div>',
    );
    expect(articleText(document.getElementById('x'))).toBe('Title\n\nOne two three\n\na\n\nb\n\ntail');
  });
});

describe(genericRecord.name, () => {
  const productPage = `<html lang="de"><head>
    <meta property="og:type" content="product"><meta property="og:title" content="Kettle 2000 | Example Shop">
    <meta property="og:image" content="https://cdn.example.com/og.jpg"><meta name="description" content="Meta description">
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Example Shop","url":"https://shop.example.com"}</script>
    <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Kettle 2000",
      "sku":"KT-2000","mpn":"K2-EU","gtin13":"4006381333931","brand":{"@type":"Brand","name":"Acme"},
      "image":["https://cdn.example.com/1.jpg","https://cdn.example.com/2.jpg"],"description":"A fast kettle.",
      "offers":[{"@type":"Offer","price":"1.299,00","priceCurrency":"EUR","availability":"http://schema.org/InStock","sku":"KT-2000-RED"},
                {"@type":"Offer","price":"1.399,00","priceCurrency":"EUR","availability":"http://schema.org/OutOfStock"}],
      "aggregateRating":{"@type":"AggregateRating","ratingValue":"4,6","reviewCount":"1.234"}}</script></head>
    <body><div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Mug</span><span itemprop="sku">RELATED-1</span></div>
    <h1>Kettle 2000</h1></body></html>`;

  it('answers a product page from its embedded data, normalised', () => {
    expect(genericRecord({ html: productPage, url: new URL('https://shop.example.de/p/kettle') })).toEqual({
      name: 'Kettle 2000',
      sku: 'KT-2000',
      mpn: 'K2-EU',
      gtin: '4006381333931',
      brand: 'Acme',
      image_url: 'https://cdn.example.com/1.jpg',
      description: 'A fast kettle.',
      price: '1299.00',
      currency: 'EUR',
      availability: 'InStock',
      rating: '4.6',
      review_count: '1234',
      title: 'Kettle 2000 | Example Shop',
    });
  });

  it('uses a document parsed already', () => {
    const $ = load(productPage);
    const record = genericRecord({ html: productPage, url: new URL('https://shop.example.de/p/kettle'), document: $.root()[0] });
    expect(record.price).toBe('1299.00');
  });

  it('falls back to microdata, RDFa and meta tags for what JSON-LD does not say', () => {
    const html = `<html><head><meta property="product:price:amount" content="19.99"><meta property="product:price:currency" content="USD"></head>
      <body><div itemscope itemtype="http://schema.org/Product"><h1 itemprop="name">Desk lamp</h1>
      <span itemprop="productID">DL-9</span>
      <link itemprop="availability" href="http://schema.org/OutOfStock"></div></body></html>`;
    expect(genericRecord({ html, url: new URL('https://shop.example.com/lamp') })).toEqual({
      name: 'Desk lamp',
      sku: 'DL-9',
      availability: 'OutOfStock',
      price: '19.99',
      currency: 'USD',
    });
  });

  it('answers an article page with headline, author, date and body', () => {
    const html = newsPage(`<meta property="og:type" content="article"><meta property="og:title" content="Council expands riverside park">
      <meta property="article:published_time" content="2024-03-05T09:30:00Z"><meta name="author" content="Jane Doe">`);
    const record = genericRecord({ html, url: PAGE_URL });
    expect(record).toMatchObject({
      headline: 'Council expands riverside park',
      title: 'Council expands riverside park',
      author: 'Jane Doe',
      date_published: '2024-03-05T09:30:00Z',
    });
    // With the author in metadata, Readability leaves the byline line in the body.
    expect(record.body).toMatch(new RegExp(`${PARAGRAPHS.join('\n\n')}$`));
    expect(record.body).not.toMatch(/Comments|Privacy|Related|Weather/);
  });

  it('answers only what the page holds, never empty strings', () => {
    const record = genericRecord({ html: '<html><body><p>Hello</p></body></html>', url: new URL('https://x.example.com/') });
    expect(record).toEqual({});
  });
});
