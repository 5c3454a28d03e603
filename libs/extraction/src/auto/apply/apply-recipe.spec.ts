import type { Recipe } from '../recipe';
import { applyRecipe, matchPageType } from './apply-recipe';
import { HtmlPage } from './html-page';
import { findLabelPairs } from './labels';

const RECIPE: Recipe = {
  format: 1,
  domain: 'shop.test',
  version: 3,
  page_types: [
    {
      name: 'product',
      url_patterns: ['/p/*'],
      signature: ['main.product', 'span.price'],
      fields: [
        {
          type: 'value',
          name: 'price',
          kind: 'price',
          status: 'active',
          meaning: ['embedded:Product/offers.price'],
          extractors: [
            { type: 'embedded', root_type: 'Product', path: 'offers.price' },
            { type: 'css', selector: 'span.price', anchored: true },
            { type: 'css', selector: 'main > div:nth-child(2) > span:nth-child(1)', anchored: false },
          ],
          extra_names: { currency: 'currency' },
        },
        {
          type: 'value',
          name: 'item_code',
          kind: 'text',
          status: 'active',
          meaning: ['label:item code'],
          extractors: [{ type: 'label', label: 'item code' }],
        },
        {
          type: 'value',
          name: 'colour',
          kind: 'text',
          status: 'dormant',
          meaning: ['label:colour'],
          extractors: [{ type: 'label', label: 'colour' }],
        },
        {
          type: 'list',
          name: 'reviews',
          status: 'active',
          meaning: ['css:ul.reviews > li'],
          items: [{ type: 'css', selector: 'ul.reviews > li', anchored: true }],
          fields: [
            { name: 'author', kind: 'text', extractors: [{ type: 'css', selector: 'b', anchored: true }] },
            { name: 'rating', kind: 'rating', extractors: [{ type: 'css', selector: 'span.stars', anchored: true }] },
          ],
        },
      ],
    },
  ],
};

function productHtml(body: string): string {
  return `<html><body><main class="product"><h1>Kettle</h1>${body}</main></body></html>`;
}

describe(applyRecipe.name, () => {
  it('takes the first extractor that yields a valid value, anchored before positional', () => {
    const html = productHtml(
      '<div><span class="price">€ 12,50</span></div><dl><dt>Item code</dt><dd>K-1</dd><dt>Colour</dt><dd>Red</dd></dl>',
    );
    expect(applyRecipe(RECIPE, { html, url: 'https://shop.test/p/kettle' })).toEqual({ price: '12.50', currency: 'EUR', item_code: 'K-1' });
  });

  it('falls back to the positional extractor when the anchor is gone', () => {
    const html = productHtml('<div><span class="cost">€ 9.99</span></div>');
    expect(applyRecipe(RECIPE, { html, url: 'https://shop.test/p/kettle' })).toMatchObject({ price: '9.99' });
  });

  it('prefers embedded data to the DOM', () => {
    const jsonLd =
      '<script type="application/ld+json">{"@type":"Product","name":"Kettle","offers":{"price":"11.00","priceCurrency":"GBP"}}</script>';
    const html = productHtml(`${jsonLd}<div><span class="price">£ 12.00</span></div>`);
    expect(applyRecipe(RECIPE, { html, url: 'https://shop.test/p/kettle' })).toMatchObject({
      price: '11.00',
      currency: 'GBP',
      name: 'Kettle',
    });
  });

  it('answers lists as arrays of records, skipping items with nothing', () => {
    const html = productHtml(
      '<span class="price">€1</span><ul class="reviews"><li><b>Ann</b> <span class="stars">4/5</span></li><li></li><li><b>Bo</b></li></ul>',
    );
    expect(applyRecipe(RECIPE, { html, url: 'https://shop.test/p/kettle' }).reviews).toEqual([
      { author: 'Ann', rating: '4' },
      { author: 'Bo' },
    ]);
  });

  it('answers {} when a page of a known type holds none of its fields', () => {
    expect(applyRecipe(RECIPE, { html: productHtml('<p>Gone</p>'), url: 'https://shop.test/p/kettle' })).toEqual({});
  });

  it('gives a page of no known type what is generic: its embedded data', () => {
    const ld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Gift card', sku: 'GC-50' });
    const html = `<html><head><script type="application/ld+json">${ld}</script></head><body><p>About us</p></body></html>`;
    expect(applyRecipe(RECIPE, { html, url: 'https://shop.test/gift' })).toMatchObject({ name: 'Gift card', sku: 'GC-50' });
  });
});

describe(`${applyRecipe.name} on a page type of no known kind`, () => {
  const sentence = 'The river runs past the old mill, where the miller kept his records of every harvest for forty years. ';
  const html = `<html><head><title>Mill notes</title></head><body><article class="post"><h1>Mill notes</h1>${`<p>${sentence.repeat(5)}</p>`.repeat(5)}</article></body></html>`;
  const pageType = (fields: Recipe['page_types'][number]['fields']): Recipe => ({
    format: 1,
    domain: 'mill.test',
    version: 1,
    page_types: [{ name: 'page', url_patterns: ['/n/*'], signature: ['article.post'], fields }],
  });
  const label = (name: string, kind: 'text' | 'price'): Recipe['page_types'][number]['fields'][number] => ({
    type: 'value',
    name,
    kind,
    status: 'active',
    meaning: [`label:${name}`],
    extractors: [{ type: 'label', label: name }],
  });

  it('reads the article with Readability when the type may be an article', () => {
    expect(applyRecipe(pageType([label('opening_hours', 'text')]), { html, url: 'https://mill.test/n/1' }).body).toEqual(
      expect.stringContaining('old mill'),
    );
  });

  it('leaves Readability out for a type with a price, whatever the price is named', () => {
    expect(applyRecipe(pageType([label('prix', 'price')]), { html, url: 'https://mill.test/n/1' }).body).toBeUndefined();
  });
});

describe(matchPageType.name, () => {
  it('matches by URL pattern when the structure fits at all', () => {
    const page = HtmlPage.parse(productHtml('<span class="price">1</span>'), 'https://shop.test/p/x');
    expect(matchPageType(RECIPE, page)?.name).toBe('product');
  });

  it('matches by structure alone when the URL is new but the layout is the same', () => {
    const page = HtmlPage.parse(productHtml('<span class="price">1</span>'), 'https://shop.test/item/x');
    expect(matchPageType(RECIPE, page)?.name).toBe('product');
  });

  it('matches nothing when neither URL nor structure fit', () => {
    const page = HtmlPage.parse('<html><body><div class="home"></div></body></html>', 'https://shop.test/');
    expect(matchPageType(RECIPE, page)).toBeUndefined();
  });
});

describe(findLabelPairs.name, () => {
  function pairsOf(body: string): Array<[string, string]> {
    const page = HtmlPage.parse(`<html><body>${body}</body></html>`, 'https://shop.test/');
    return page.labelPairs.map((pair) => [pair.label, pair.value]);
  }

  it('reads table rows, definition lists and "Label: value" text', () => {
    expect(
      pairsOf('<table><tr><th>SKU</th><td>A1</td></tr></table><dl><dt>Size:</dt><dd>M</dd></dl><ul><li><b>Brand:</b> Acme</li></ul>'),
    ).toEqual([
      ['sku', 'A1'],
      ['size', 'M'],
      ['brand', 'Acme'],
    ]);
  });

  it('ignores scripts, styles, URLs and times', () => {
    expect(pairsOf('<style>a:hover{color:red}</style><script>var x = {a: 1}</script><p>https://x.test</p><p>Opens 10:30</p>')).toEqual([]);
  });
});
