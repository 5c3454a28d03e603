import { load } from 'cheerio';
import { parseDocument } from 'htmlparser2';
import { embeddedFacts } from './embedded-facts';
import type { EmbeddedFact } from './embedded-fact';

const PAGE = new URL('https://shop.example.com/p/kettle-2000');

function factsOf(html: string): EmbeddedFact[] {
  return embeddedFacts(parseDocument(html), PAGE);
}

/** Facts without the element, to compare as plain data. */
function plain(facts: EmbeddedFact[]): Array<Omit<EmbeddedFact, 'element'>> {
  return facts.map(({ element: _element, ...rest }) => rest);
}

function valueAt(facts: EmbeddedFact[], rootType: string, path: string): string | undefined {
  return facts.find((fact) => fact.rootType === rootType && fact.path === path)?.value;
}

describe(embeddedFacts.name, () => {
  describe('JSON-LD', () => {
    it('reads a product with nested offers, brand and rating', () => {
      const facts = factsOf(`<html><head><script type="application/ld+json">
        {"@context":"https://schema.org","@type":"Product","name":"Kettle 2000","sku":"KT-2000",
         "gtin13":"4006381333931","brand":{"@type":"Brand","name":"Acme"},
         "image":["https://cdn.example.com/1.jpg","https://cdn.example.com/2.jpg"],
         "offers":{"@type":"Offer","price":49.99,"priceCurrency":"EUR","availability":"https://schema.org/InStock"},
         "aggregateRating":{"@type":"AggregateRating","ratingValue":"4.6","reviewCount":"128"}}
      </script></head><body></body></html>`);
      expect(plain(facts)).toEqual([
        { source: 'json-ld', rootType: 'Product', path: 'name', value: 'Kettle 2000', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'sku', value: 'KT-2000', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'gtin13', value: '4006381333931', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'brand.name', value: 'Acme', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'image', index: 0, value: 'https://cdn.example.com/1.jpg', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'image', index: 1, value: 'https://cdn.example.com/2.jpg', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'offers.price', value: '49.99', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'offers.priceCurrency', value: 'EUR', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'offers.availability', value: 'https://schema.org/InStock', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'aggregateRating.ratingValue', value: '4.6', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'aggregateRating.reviewCount', value: '128', item: 0 },
      ]);
    });

    it('reads every node of a @graph and follows @id references', () => {
      const facts = factsOf(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
        {"@type":"WebSite","@id":"https://news.example.com/#website","name":"Example News"},
        {"@type":"NewsArticle","@id":"https://news.example.com/a#article","headline":"Rates rise",
         "author":{"@id":"https://news.example.com/#/person/jane"},"datePublished":"2024-03-01T08:00:00+00:00"},
        {"@type":"Person","@id":"https://news.example.com/#/person/jane","name":"Jane Doe"}]}</script>`);
      expect(valueAt(facts, 'WebSite', 'name')).toBe('Example News');
      expect(valueAt(facts, 'NewsArticle', 'headline')).toBe('Rates rise');
      expect(valueAt(facts, 'NewsArticle', 'author.name')).toBe('Jane Doe');
      expect(valueAt(facts, 'Person', 'name')).toBe('Jane Doe');
      expect(new Set(facts.map((fact) => fact.item))).toEqual(new Set([0, 1, 2]));
    });

    it('reads several offers and authors as indexed paths', () => {
      const facts = factsOf(`<script type="application/ld+json">[{"@type":"Product","name":"Tee",
        "offers":[{"@type":"Offer","price":"10.00"},{"@type":"Offer","price":"12.00"}]},
        {"@type":["BlogPosting","Thing"],"author":[{"@type":"Person","name":"A"},{"@type":"Person","name":"B"}]}]</script>`);
      expect(plain(facts.filter((fact) => fact.path === 'offers.price' || fact.path === 'author.name'))).toEqual([
        { source: 'json-ld', rootType: 'Product', path: 'offers.price', index: 0, value: '10.00', item: 0 },
        { source: 'json-ld', rootType: 'Product', path: 'offers.price', index: 1, value: '12.00', item: 0 },
        { source: 'json-ld', rootType: 'BlogPosting', path: 'author.name', index: 0, value: 'A', item: 1 },
        { source: 'json-ld', rootType: 'BlogPosting', path: 'author.name', index: 1, value: 'B', item: 1 },
      ]);
    });

    it('reads the mainEntity of a page as a root item', () => {
      const facts = factsOf(`<script type="application/ld+json">{"@type":"ItemPage","name":"Kettle page",
        "mainEntity":{"@type":"Product","name":"Kettle","offers":{"price":"20"}}}</script>`);
      expect(valueAt(facts, 'ItemPage', 'name')).toBe('Kettle page');
      expect(valueAt(facts, 'Product', 'offers.price')).toBe('20');
    });

    it('mends broken JSON: comments, CDATA, trailing commas, raw line breaks', () => {
      const facts = factsOf(`<script type="application/ld+json"><!--
        {"@type":"Product","name":"Line one
        line two","sku":"A1",}
      --></script><script type="application/ld+json">//<![CDATA[
        {"@type":"Article","headline":"Tom &amp; Jerry"}
      //]]></script>`);
      expect(valueAt(facts, 'Product', 'name')).toBe('Line one line two');
      expect(valueAt(facts, 'Product', 'sku')).toBe('A1');
      expect(valueAt(facts, 'Article', 'headline')).toBe('Tom & Jerry');
    });

    it('skips blocks that are not JSON and values that are empty', () => {
      const facts = factsOf(`<script type="application/ld+json">{oops</script>
        <script type="application/ld+json">{"@type":"Product","name":"","sku":null,"mpn":"M-1"}</script>`);
      expect(plain(facts)).toEqual([{ source: 'json-ld', rootType: 'Product', path: 'mpn', value: 'M-1', item: 0 }]);
    });

    it('reads schema URLs as local names', () => {
      const facts = factsOf(`<script type="application/ld+json">{"@type":"http://schema.org/Product",
        "http://schema.org/name":"Kettle"}</script>`);
      expect(valueAt(facts, 'Product', 'name')).toBe('Kettle');
    });

    it('survives reference cycles', () => {
      const facts = factsOf(`<script type="application/ld+json">{"@graph":[
        {"@type":"WebPage","@id":"#p","about":{"@id":"#o"}},{"@type":"Organization","@id":"#o","name":"Acme","page":{"@id":"#p"}}]}</script>`);
      expect(valueAt(facts, 'WebPage', 'about.name')).toBe('Acme');
    });
  });

  describe('microdata', () => {
    const html = `<div itemscope itemtype="https://schema.org/Product">
        <h1 itemprop="name">Kettle <b>2000</b></h1>
        <img itemprop="image" src="/img/kettle.jpg" alt="">
        <span itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Acme</span></span>
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <span itemprop="priceCurrency" content="USD">$</span><span itemprop="price" content="49.99">49.99</span>
          <link itemprop="availability" href="https://schema.org/InStock">In stock
        </div>
        <meta itemprop="sku" content="KT-2000">
        <div itemprop="review" itemscope itemtype="https://schema.org/Review"><span itemprop="author">Sam</span></div>
        <div itemprop="review" itemscope itemtype="https://schema.org/Review"><span itemprop="author">Kim</span></div>
      </div>
      <div itemscope itemtype="http://schema.org/Product" itemref="extra"><span itemprop="name">Related mug</span></div>
      <p id="extra"><span itemprop="color">Blue</span></p>`;

    it('reads items, nested items, content and URL attributes, and itemref', () => {
      const facts = factsOf(html);
      expect(plain(facts)).toEqual([
        { source: 'microdata', rootType: 'Product', path: 'name', value: 'Kettle 2000', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'image', value: 'https://shop.example.com/img/kettle.jpg', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'brand.name', value: 'Acme', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'offers.priceCurrency', value: 'USD', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'offers.price', value: '49.99', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'offers.availability', value: 'https://schema.org/InStock', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'sku', value: 'KT-2000', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'review.author', index: 0, value: 'Sam', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'review.author', index: 1, value: 'Kim', item: 0 },
        { source: 'microdata', rootType: 'Product', path: 'name', value: 'Related mug', item: 1 },
        { source: 'microdata', rootType: 'Product', path: 'color', value: 'Blue', item: 1 },
      ]);
    });

    it('points each fact at the element carrying it', () => {
      const price = factsOf(html).find((fact) => fact.path === 'offers.price');
      expect(price?.element?.name).toBe('span');
      expect(price?.element?.attribs.itemprop).toBe('price');
    });

    it('reads a cheerio document the same way', () => {
      const $ = load(html);
      expect(plain(embeddedFacts($.root()[0], PAGE))).toEqual(plain(factsOf(html)));
    });
  });

  describe('RDFa Lite', () => {
    it('reads typeof items and their properties', () => {
      const facts = factsOf(`<div vocab="https://schema.org/" typeof="Product">
        <span property="name">Kettle</span>
        <div property="offers" typeof="Offer"><span property="price" content="49.99">$49.99</span>
          <a property="url" href="/p/kettle">link</a></div>
        <time property="schema:releaseDate" datetime="2024-01-02">Jan 2</time></div>`);
      expect(plain(facts)).toEqual([
        { source: 'rdfa', rootType: 'Product', path: 'name', value: 'Kettle', item: 0 },
        { source: 'rdfa', rootType: 'Product', path: 'offers.price', value: '49.99', item: 0 },
        { source: 'rdfa', rootType: 'Product', path: 'offers.url', value: 'https://shop.example.com/p/kettle', item: 0 },
        { source: 'rdfa', rootType: 'Product', path: 'releaseDate', value: '2024-01-02', item: 0 },
      ]);
      expect(facts[0].element?.name).toBe('span');
    });
  });

  describe('meta tags', () => {
    it('reads OpenGraph, product, Twitter and plain meta tags', () => {
      const facts = factsOf(`<head>
        <meta property="og:type" content="product"><meta property="og:title" content="Kettle 2000">
        <meta property="og:image" content="https://cdn.example.com/1.jpg"><meta property="og:image" content="https://cdn.example.com/2.jpg">
        <meta property="product:price:amount" content="49.99"><meta property="product:price:currency" content="EUR">
        <meta name="twitter:card" content="summary"><meta property="article:published_time" content="2024-03-01T08:00:00Z">
        <meta name="description" content=" A kettle. "><meta name="author" content="Jane"><meta name="DC.date.issued" content="2024-03-01">
        <meta charset="utf-8"><meta name="empty" content="">
      </head>`);
      expect(plain(facts)).toEqual([
        { source: 'opengraph', rootType: 'og', path: 'type', value: 'product', item: 0 },
        { source: 'opengraph', rootType: 'og', path: 'title', value: 'Kettle 2000', item: 0 },
        { source: 'opengraph', rootType: 'og', path: 'image', index: 0, value: 'https://cdn.example.com/1.jpg', item: 0 },
        { source: 'opengraph', rootType: 'og', path: 'image', index: 1, value: 'https://cdn.example.com/2.jpg', item: 0 },
        { source: 'opengraph', rootType: 'product', path: 'price:amount', value: '49.99', item: 0 },
        { source: 'opengraph', rootType: 'product', path: 'price:currency', value: 'EUR', item: 0 },
        { source: 'opengraph', rootType: 'twitter', path: 'card', value: 'summary', item: 0 },
        { source: 'opengraph', rootType: 'article', path: 'published_time', value: '2024-03-01T08:00:00Z', item: 0 },
        { source: 'meta', rootType: 'meta', path: 'description', value: 'A kettle.', item: 0 },
        { source: 'meta', rootType: 'meta', path: 'author', value: 'Jane', item: 0 },
        { source: 'meta', rootType: 'meta', path: 'dc.date.issued', value: '2024-03-01', item: 0 },
      ]);
    });
  });

  it('answers in sources order: JSON-LD, microdata, RDFa, meta tags', () => {
    const facts =
      factsOf(`<meta property="og:title" content="T"><div itemscope itemtype="https://schema.org/Thing"><span itemprop="name">M</span></div>
      <div typeof="Thing"><span property="name">R</span></div><script type="application/ld+json">{"@type":"Thing","name":"J"}</script>`);
    expect(facts.map((fact) => fact.source)).toEqual(['json-ld', 'microdata', 'rdfa', 'opengraph']);
  });

  // Its speed is a bench figure (the recipe apply time of `make bench`, which reads every page's
  // embedded facts), not a timed unit test: a busy machine must not fail a suite.
  it('reads every record of a 200 KB page', () => {
    const block = `<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Item</span>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="9.99">$9.99</span></div>
      <p>${'Lorem ipsum dolor sit amet. '.repeat(20)}</p></div>`;
    const document = parseDocument(`<html><body>${block.repeat(Math.ceil(200_000 / block.length))}</body></html>`);
    const facts = embeddedFacts(document, PAGE);
    const blocks = Math.ceil(200_000 / block.length);
    expect(facts.filter((fact) => fact.source === 'microdata').length).toBeGreaterThanOrEqual(blocks);
  });
});
