import { OUTPUT_NAMES } from '@trawl/contracts';
import { applyCssExtractor } from './css-extractor';
import { ExtractionErrorCode } from './extraction.errors';
import { extractOutputs } from './extract-outputs';
import { toMarkdown } from './markdown';
import { parsePage } from './parsed-page';
import { toPlainText } from './plain-text';

const PAGE_URL = 'https://shop.test/catalog?page=2';

/** One product card of a listing page, as shops write them. */
function productCard(index: number): string {
  return `<li class="product" data-id="${index}">
    <a href="/p/${index}" class="card"><img src="/img/${index}.jpg" srcset="/img/${index}-2x.jpg 2x" alt="Product ${index}" loading="lazy">
    <h3 class="name">Product   ${index}</h3></a>
    <p class="desc">Warm, light and dry. Ask sales${index % 50}@shop.test or call +44 20 7946 ${String(1000 + (index % 9000)).padStart(4, '0')}. #winter${index % 20}</p>
    <table class="sizes"><tr><th>Size</th><th>Stock</th></tr><tr><td>S</td><td>${index % 7}</td></tr></table>
    <span class="price">€ ${(index % 300) + 0.99}</span><script>window.dataLayer.push({id: ${index}})</script>
  </li>`;
}

/** A listing page of `cards` products with the usual head and chrome. */
function listingPage(cards: number): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Catalog – page 2</title>
    <meta name="description" content="Coats"><link rel="icon" href="/favicon.png" sizes="32x32">
    <meta property="og:title" content="Catalog"><script type="application/ld+json">{"@type":"ItemList"}</script></head>
    <body><nav aria-label="Main"><a href="/">Home</a><a href="/catalog">Catalog</a></nav>
    <main><h1>Coats</h1><ul class="products">${Array.from({ length: cards }, (_, i) => productCard(i)).join('')}</ul></main>
    <footer><a href="mailto:help@shop.test">Help</a> <a href="tel:+15550100">Call</a></footer></body></html>`;
}

describe(extractOutputs.name, () => {
  it('answers every asked output, keyed by name, in the asked order', () => {
    const answer = extractOutputs(listingPage(2), PAGE_URL, ['favicon', 'emails', 'headings', 'favicon']);
    expect(Object.keys(answer)).toEqual(['favicon', 'emails', 'headings']);
    expect(answer.favicon).toBe('https://shop.test/favicon.png');
    expect(answer.emails).toEqual(['help@shop.test', 'sales0@shop.test', 'sales1@shop.test']);
    expect(answer.headings.h3).toEqual(['Product 0', 'Product 1']);
  });

  it('answers all twelve outputs from one parsed page', () => {
    const page = parsePage(listingPage(3), PAGE_URL);
    const answer = extractOutputs(page, undefined, OUTPUT_NAMES);
    expect(Object.keys(answer).sort()).toEqual([...OUTPUT_NAMES].sort());
    expect(answer.phone_numbers).toEqual(['+15550100', '+442079461000', '+442079461001', '+442079461002']);
    expect(answer.hashtags).toEqual(['#winter0', '#winter1', '#winter2']);
    expect(answer.images.map((image) => image.src)).toEqual([0, 1, 2].map((i) => `https://shop.test/img/${i}.jpg`));
    expect(answer.links.map((link) => link.url)).toEqual([
      'https://shop.test/',
      'https://shop.test/catalog',
      'https://shop.test/p/0',
      'https://shop.test/p/1',
      'https://shop.test/p/2',
    ]);
    expect(answer.tables).toHaveLength(3);
    expect(answer.tables[2]).toEqual({ headers: ['Size', 'Stock'], rows: [['S', '2']] });
    expect(answer.menus).toEqual([
      {
        label: 'Main',
        items: [
          { text: 'Home', url: 'https://shop.test/' },
          { text: 'Catalog', url: 'https://shop.test/catalog' },
        ],
      },
    ]);
    expect(answer.metadata.json_ld).toEqual([{ '@type': 'ItemList' }]);
    expect(answer.audios).toEqual([]);
    expect(answer.videos).toEqual([]);
  });

  it('refuses HTML without an absolute page URL', () => {
    expect(() => extractOutputs('<p>x</p>', 'shop.test/x', ['links'])).toThrow(
      expect.objectContaining({ code: ExtractionErrorCode.InvalidPageUrl }),
    );
  });

  describe('on a 1 MB page', () => {
    const html = listingPage(2_100);

    it('is about a megabyte of realistic markup', () => {
      expect(html.length).toBeGreaterThan(1_000_000);
    });

    // Speed is not asserted here (a busy runner makes timed unit tests flaky); the per-test timeout
    // only stops runaway (quadratic, backtracking) work, which takes minutes on this page.
    it('answers all outputs and a css_extractor', () => {
      const page = parsePage(html, PAGE_URL);
      const outputs = extractOutputs(page, undefined, OUTPUT_NAMES);
      const css = applyCssExtractor(page, { names: '.product .name', prices: '.price', links: '.card @href' });
      expect(outputs.images).toHaveLength(2_100);
      expect(css.names).toHaveLength(2_100);
    }, 60_000);

    it('renders plain text (streamed, no DOM)', () => {
      expect(toPlainText(html)).toContain('Product 2099');
    }, 60_000);

    it('renders markdown', () => {
      expect(toMarkdown(html, PAGE_URL)).toContain('### Product 2099');
    }, 60_000);
  });
});
