import { applyCssExtractor, MAX_CSS_EXTRACTOR_FIELDS, parseCssExtractor } from './css-extractor';
import { ExtractionErrorCode } from './extraction.errors';
import { parsePage } from './parsed-page';

const PAGE_URL = 'https://shop.test/catalog/page.html';
const PRODUCT_PAGE = `<!doctype html><html><head><title>Catalog</title>
  <script type="application/ld+json">{"@type": "ItemList"}</script></head><body>
  <h1>  Winter
     coats </h1>
  <table id="sizes"><tr><td>S</td><td>M</td></tr></table>
  <ul class="products">
    <li class="product"><a href="/p/1"><span class="name">Parka</span></a><span class="price">€ 120</span><img src="img/1.jpg"></li>
    <li class="product"><a href="p/2?ref=list"><span class="name">Duffle</span></a><span class="price">€ 90</span><img></li>
  </ul>
  <p class="lead">Warm <b>and</b><br>dry.<script>track()</script></p>
</body></html>`;

function invalidCode(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe(parseCssExtractor.name, () => {
  it('answers the validated object', () => {
    expect(parseCssExtractor('{"title":"h1","links":"a @href"}')).toEqual({ title: 'h1', links: 'a @href' });
  });

  it.each([
    ['not JSON', '{title: h1}'],
    ['an array', '["h1"]'],
    ['a string', '"h1"'],
    ['null', 'null'],
    ['an empty object', '{}'],
    ['a number value', '{"a": 1}'],
    ['a nested object', '{"a": {"selector": "h1"}}'],
    ['an empty selector', '{"a": "  "}'],
    ['only an attribute', '{"a": " @href"}'],
    ['an empty name', '{"": "h1"}'],
    ['an unclosed attribute selector', '{"a": "div["}'],
    ['an unknown pseudo-class', '{"a": "p:nosuch"}'],
    ['a pseudo-element', '{"a": "p::before"}'],
    ['a dangling combinator', '{"a": "ul >"}'],
    ['a leading combinator', '{"a": "> li"}'],
    ['an XPath', '{"a": "//div"}'],
    ['HTML instead of a selector', '{"a": "<img src=x onerror=alert(1)>"}'],
  ])('refuses %s with invalid_css_extractor', (_, json) => {
    expect(invalidCode(() => parseCssExtractor(json))).toBe(ExtractionErrorCode.InvalidCssExtractor);
  });

  it(`refuses more than ${MAX_CSS_EXTRACTOR_FIELDS} names`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_CSS_EXTRACTOR_FIELDS + 1 }, (_, i) => [`f${i}`, 'p']));
    expect(invalidCode(() => parseCssExtractor(JSON.stringify(many)))).toBe(ExtractionErrorCode.InvalidCssExtractor);
  });

  it('names the field and the selector in the message', () => {
    expect(() => parseCssExtractor('{"price": "span["}')).toThrow(/"price".*"span\["/);
  });
});

describe(applyCssExtractor.name, () => {
  it('answers a string for one match, a list for several and "" for none', () => {
    const answer = applyCssExtractor(PRODUCT_PAGE, { title: 'h1', names: '.product .name', missing: '.nothing' }, PAGE_URL);
    expect(answer).toEqual({ title: 'Winter coats', names: ['Parka', 'Duffle'], missing: '' });
  });

  it('answers attributes with " @attr", URLs absolute, "" where a node lacks it', () => {
    const answer = applyCssExtractor(
      PRODUCT_PAGE,
      { links: '.product a @href', images: '.product img @src', classes: 'li.product @class', id: 'table @ID' },
      PAGE_URL,
    );
    expect(answer).toEqual({
      links: ['https://shop.test/p/1', 'https://shop.test/catalog/p/2?ref=list'],
      images: ['https://shop.test/catalog/img/1.jpg', ''],
      classes: ['product', 'product'],
      id: 'sizes',
    });
  });

  it('collapses whitespace, separates blocks and leaves script text out', () => {
    expect(applyCssExtractor(PRODUCT_PAGE, { lead: 'p.lead' }, PAGE_URL)).toEqual({ lead: 'Warm and dry.' });
  });

  it('answers the source of a selected <script> (JSON-LD)', () => {
    const answer = applyCssExtractor(PRODUCT_PAGE, { ld: 'script[type="application/ld+json"]' }, PAGE_URL);
    expect(JSON.parse(answer.ld as string)).toEqual({ '@type': 'ItemList' });
  });

  it('matches the DOM a browser builds (implied <tbody>)', () => {
    expect(applyCssExtractor(PRODUCT_PAGE, { cells: '#sizes > tbody > tr > td' }, PAGE_URL)).toEqual({ cells: ['S', 'M'] });
  });

  it('supports selector lists, :nth-child and :has', () => {
    const answer = applyCssExtractor(
      PRODUCT_PAGE,
      { heads: 'h1, title', second: '.product:nth-child(2) .price', withImage: 'li:has(img[src]) .name' },
      PAGE_URL,
    );
    expect(answer).toEqual({ heads: ['Catalog', 'Winter coats'], second: '€ 90', withImage: 'Parka' });
  });

  it('runs on a page parsed once', () => {
    const page = parsePage(PRODUCT_PAGE, PAGE_URL);
    expect(applyCssExtractor(page, { price: '.price' })).toEqual({ price: ['€ 120', '€ 90'] });
  });

  it('validates the extractor again', () => {
    expect(invalidCode(() => applyCssExtractor(PRODUCT_PAGE, { a: 'p:nosuch' }, PAGE_URL))).toBe(ExtractionErrorCode.InvalidCssExtractor);
  });
});
