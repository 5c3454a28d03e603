import type { AttributeKinds } from '../fixtures/web/sites/extract/truth';
import {
  articleBodyOf,
  benchmarkAvailability,
  decimalMatching,
  exactTokens,
  firstScalar,
  flattenPredicted,
  hardMatching,
  macroMetrics,
  microMetrics,
  productPredictionOf,
  scoreProductPage,
  scoreSite,
  shingleF1,
  shingleMatching,
  valueMatches,
  type ScoredPage,
} from './extract-scoring';

const PAGE = 'http://shop.test:8080/p/1';

const PRODUCT_KINDS: AttributeKinds = {
  name: 'text',
  price: 'price',
  currency: 'enum',
  availability: 'enum',
  colour: 'text',
  category: 'text',
  products: { list: { name: 'text', price: 'price', url: 'url' } },
};

function product(n: number, extra: Record<string, string> = {}) {
  return { name: `Kettle ${n}`, price: `${n}9.99`, currency: 'EUR', availability: n % 2 === 0 ? 'InStock' : 'OutOfStock', ...extra };
}

function page(n: number, parsed: unknown, truth: Record<string, unknown> = product(n), pageType = 'product'): ScoredPage {
  return { url: `http://shop.test:8080/p/${n}`, pageType, truth: truth as ScoredPage['truth'], parsed };
}

describe('extract scoring', () => {
  describe(valueMatches.name, () => {
    it.each([
      ['text', 'Nordic  Kettle\n', 'Nordic Kettle', true],
      ['text', 'nordic kettle', 'Nordic Kettle', false],
      ['enum', 'https://schema.org/InStock', 'InStock', true],
      ['enum', 'instock', 'InStock', true],
      ['enum', 'In stock', 'InStock', false],
      ['price', '1299', '1299.00', true],
      ['price', 1299, '1299.00', true],
      ['price', '1,299.00', '1299.00', false],
      ['price', '€19.99', '19.99', false],
      ['number', '4.50', '4.5', true],
      ['date', '2024-03-05T09:30:00+00:00', '2024-03-05', true],
      ['date', 'March 5, 2024', '2024-03-05', false],
      ['url', '/item/1/kettle', '/item/1/kettle', true],
      ['url', 'http://shop.test:8080/item/1/kettle#top', '/item/1/kettle', true],
      ['url', 'http://other.test:8080/item/1/kettle', '/item/1/kettle', false],
    ] as const)('%s: %j against %j is %s', (kind, predicted, truth, expected) => {
      expect(valueMatches(kind, truth, predicted, PAGE)).toBe(expected);
    });

    it('accepts a body whose shingle F1 is at least 0.95 and refuses one with a leaked comment', () => {
      const body = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
      expect(valueMatches('body', body, `${body} word60`, PAGE)).toBe(true);
      expect(valueMatches('body', body, `${body} ${Array.from({ length: 12 }, (_, i) => `comment${i}`).join(' ')}`, PAGE)).toBe(false);
    });
  });

  describe(flattenPredicted.name, () => {
    it('names nested objects with dots, joins lists of plain values and keeps lists of records', () => {
      const flat = flattenPredicted({
        name: 'A',
        offer: { price: 9.5, seller: { name: 'S' } },
        paragraphs: ['one', 'two'],
        items: [{ name: 'x', tags: [{ t: 1 }] }, 'stray'],
        empty: '',
        none: null,
      });
      expect([...flat.scalars]).toEqual([
        ['name', 'A'],
        ['offer.price', 9.5],
        ['offer.seller.name', 'S'],
        ['paragraphs', 'one\ntwo'],
      ]);
      expect(flat.lists.get('items')?.map((item) => [...item])).toEqual([[['name', 'x']]]);
      expect(flat.unmappable).toEqual(['items[].tags[].t=1', 'items[]=stray']);
    });
  });

  describe(scoreSite.name, () => {
    it('maps learned names to the truth and scores a perfect answer 1 and 1', () => {
      const pages = [1, 2, 3].map((n) => {
        const p = product(n);
        return page(n, { title: p.name, amount: p.price, currency_code: p.currency, stock: `https://schema.org/${p.availability}` });
      });
      const score = scoreSite(pages, PRODUCT_KINDS);
      expect(score).toMatchObject({ precision: 1, recall: 1, correct: 12, predicted: 12, expected: 12 });
      expect(score.mapping).toEqual({ product: { availability: 'stock', currency: 'currency_code', name: 'title', price: 'amount' } });
    });

    it('counts junk fields and leaked related products against precision only', () => {
      const pages = [1, 2].map((n) =>
        page(n, {
          ...product(n),
          promo: 'Free delivery',
          related_products: [
            { name: 'Ad kettle', price: '5.00' },
            { name: 'Other', price: '6.00' },
          ],
        }),
      );
      const score = scoreSite(pages, PRODUCT_KINDS);
      expect(score.recall).toBe(1);
      // 8 right of 8 + 2 junk scalars + 8 leaked list values.
      expect(score.precision).toBeCloseTo(8 / 18);
      expect(score.pages[0].mistakes).toEqual(['junk promo: "Free delivery"', 'junk list related_products: 2 records, 4 values']);
    });

    it('counts wrong and missing values against recall, wrong ones against precision too', () => {
      const score = scoreSite([page(1, { ...product(1), price: '99.00' }), page(2, { name: product(2).name })], PRODUCT_KINDS);
      expect({ correct: score.correct, predicted: score.predicted, expected: score.expected }).toEqual({
        correct: 4,
        predicted: 5,
        expected: 8,
      });
      expect(score.pages[0].mistakes).toEqual(['price: expected "19.99", got "99.00" (price)']);
    });

    it('maps one-to-one: of two fields with the same values one is junk, the one named like the attribute wins', () => {
      const score = scoreSite(
        [1, 2].map((n) => page(n, { title: product(n).name, name: product(n).name }, { name: product(n).name })),
        { name: 'text' },
      );
      expect(score.mapping.product).toEqual({ name: 'name' });
      expect(score.precision).toBe(0.5);
    });

    it('picks the field that agrees most often, so a wrong field on some pages does not win', () => {
      const pages = [1, 2, 3].map((n) =>
        page(n, { a: product(n).name, b: n === 1 ? product(n).name : 'Template text' }, { name: product(n).name }),
      );
      expect(scoreSite(pages, { name: 'text' }).mapping.product).toEqual({ name: 'a' });
    });

    it('does not credit a value for an optional attribute a page does not have', () => {
      const score = scoreSite([page(1, { colour: 'Red' }, { colour: 'Red' }), page(2, { colour: 'Blue' }, {})], { colour: 'text' });
      expect({ correct: score.correct, predicted: score.predicted, expected: score.expected }).toEqual({
        correct: 1,
        predicted: 2,
        expected: 1,
      });
      expect(score.pages[1].mistakes).toEqual(['colour (colour) is not on this page, got "Blue"']);
    });

    it('maps a list attribute and its records’ attributes, whatever the order of the records', () => {
      const truth = { category: 'Kettles', products: [1, 2, 3].map((n) => ({ name: `Kettle ${n}`, price: `${n}.00`, url: `/item/${n}` })) };
      const parsed = {
        heading: 'Kettles',
        items: [3, 1, 2].map((n) => ({ title: `Kettle ${n}`, cost: n === 2 ? '9.00' : n, link: `http://shop.test:8080/item/${n}` })),
      };
      const score = scoreSite([page(1, parsed, truth, 'listing')], PRODUCT_KINDS);
      expect(score.mapping).toEqual({
        listing: {
          category: 'heading',
          products: 'items',
          'products[].name': 'items[].title',
          'products[].price': 'items[].cost',
          'products[].url': 'items[].link',
        },
      });
      expect({ correct: score.correct, predicted: score.predicted, expected: score.expected }).toEqual({
        correct: 9,
        predicted: 10,
        expected: 10,
      });
    });

    it('keeps a record’s values together: a price of another record is not correct', () => {
      const truth = {
        products: [
          { name: 'A', price: '1.00' },
          { name: 'B', price: '2.00' },
        ],
      };
      const swapped = {
        items: [
          { name: 'A', price: '2.00' },
          { name: 'B', price: '1.00' },
        ],
      };
      const right = {
        items: [
          { name: 'A', price: '1.00' },
          { name: 'B', price: '2.00' },
        ],
      };
      // With a second page agreeing, the mapping is the obvious one; the swapped page gets names only.
      const score = scoreSite([page(1, swapped, truth, 'listing'), page(2, right, truth, 'listing')], PRODUCT_KINDS);
      expect(score.pages.map((p) => p.correct)).toEqual([2, 4]);
    });

    it('maps each page type on its own and scores a failed fetch as nothing predicted', () => {
      const score = scoreSite(
        [
          page(1, { name: 'Kettles' }, { category: 'Kettles' }, 'listing'),
          page(2, { name: product(2).name }, { name: product(2).name }),
          page(3, undefined, { name: product(3).name }),
        ],
        PRODUCT_KINDS,
      );
      expect(score.mapping).toEqual({ listing: { category: 'name' }, product: { name: 'name' } });
      expect({ precision: score.precision, recall: score.recall }).toEqual({ precision: 1, recall: 2 / 3 });
    });
  });

  describe('product benchmark rules', () => {
    it('matches one value against every accepted one', () => {
      expect(hardMatching(new Set(['A1', 'A-1']), 'A-1')).toEqual([1, 0, 0]);
      expect(hardMatching(new Set(['A1']), 'B2')).toEqual([0, 1, 1]);
      expect(hardMatching(new Set<string>(), 'B2')).toEqual([0, 1, 0]);
      expect(hardMatching(new Set(['A1']), undefined)).toEqual([0, 0, 1]);
      expect(hardMatching(new Set<string>(), undefined)).toEqual([0, 0, 0]);
    });

    it('compares prices as decimal numbers; a price with symbols is wrong', () => {
      expect(decimalMatching(['87.11'], '87.110')).toEqual([1, 0, 0]);
      expect(decimalMatching(['87.11'], 87.11)).toEqual([1, 0, 0]);
      expect(decimalMatching(['87.11'], '$87.11')).toEqual([0, 1, 1]);
      expect(decimalMatching([], '1.00')).toEqual([0, 1, 0]);
    });

    it('micro-averages over pages', () => {
      const metrics = microMetrics([
        [1, 0, 0],
        [0, 1, 1],
        [0, 0, 1],
        [1, 0, 0],
      ]);
      expect(metrics.precision).toBeCloseTo(2 / 3);
      expect(metrics.recall).toBeCloseTo(2 / 4);
      expect(metrics.f1).toBeCloseTo((2 * (2 / 3) * 0.5) / (2 / 3 + 0.5));
      expect(microMetrics([[0, 0, 0]])).toEqual({ f1: 1, precision: 1, recall: 1 });
    });

    it('reads availability as the benchmark does: out-of-stock terms, else InStock', () => {
      expect(['https://schema.org/OutOfStock', 'sold_out', 'Discontinued'].map(benchmarkAvailability)).toEqual([
        'OutOfStock',
        'OutOfStock',
        'OutOfStock',
      ]);
      expect(['InStock', 'LimitedAvailability', 'PreOrder', 'maybe', undefined].map(benchmarkAvailability)).toEqual(
        Array(5).fill('InStock'),
      );
    });

    it('takes one predicted value per attribute', () => {
      expect([firstScalar(' 12.5 '), firstScalar(['a', 'b']), firstScalar([{ x: 1 }]), firstScalar(''), firstScalar(3)]).toEqual([
        '12.5',
        'a',
        undefined,
        undefined,
        3,
      ]);
    });
  });

  describe('article benchmark rules', () => {
    // Expected values computed with the benchmark's evaluate.py (string_shingle_matching).
    it.each([
      ['the quick brown fox jumps over the lazy dog', 'the quick brown fox jumps over a lazy cat', [1 / 3, 1 / 3, 1 / 3]],
      ['Ünïcode wörds, café-au-lait; naïve 42_x', 'Ünïcode wörds café au lait naïve 42_x extra', [0.8, 0.2, 0]],
      ['short text', 'short text', [1, 0, 0]],
      ['short', 'other', [0, 0.5, 0.5]],
      ['', '', [0, 0, 0]],
      ['a b c d e f', 'a b c d e f a b c d', [3 / 7, 4 / 7, 0]],
    ])('shingles %j against %j', (truth, predicted, expected) => {
      const result = shingleMatching(truth, predicted);
      expected.forEach((value, i) => expect(result[i]).toBeCloseTo(value, 12));
    });

    it('macro-averages precision over pages with a prediction and recall over pages with a truth', () => {
      const metrics = macroMetrics([
        [0.5, 0.5, 0],
        [0, 0, 1],
        [1, 0, 0],
      ]);
      expect(metrics.precision).toBeCloseTo((0.5 + 1) / 2);
      expect(metrics.recall).toBeCloseTo((1 + 0 + 1) / 3);
    });

    it('gives F1 per body and token-exact accuracy', () => {
      expect(shingleF1('a b c d e', 'a b c d e')).toBe(1);
      expect(shingleF1('a b c d e', '')).toBe(0);
      expect(exactTokens('Hello, world!', 'hello world')).toBe(false);
      expect(exactTokens('Hello, world!', 'Hello world')).toBe(true);
    });
  });
});

describe('extract scoring of the public benchmarks', () => {
  describe(productPredictionOf.name, () => {
    it('takes the fields of the same names, one value each, and reads availability as the benchmark does', () => {
      expect(
        productPredictionOf({
          price: 19.9,
          sku: [' A1 ', 'A2'],
          availability: 'https://schema.org/OutOfStock',
          brand: { name: 'X' },
          gtin: '123',
          colour: 'red',
        }),
      ).toEqual({
        price: 19.9,
        sku: 'A1',
        availability: 'OutOfStock',
        OutOfStock: 'OutOfStock',
        gtin: '123',
      });
      expect(productPredictionOf(undefined)).toEqual({ availability: 'InStock', InStock: 'InStock' });
    });
  });

  describe(scoreProductPage.name, () => {
    it('scores each attribute of a page under the benchmark’s rules', () => {
      const truth = {
        price: ['229.99 '],
        sku: ['B07', 'b07'],
        availability: ['InStock'],
        InStock: ['InStock'],
        brand: ['Acme'],
        url: 'https://x.test/',
      };
      expect(scoreProductPage(truth, { price: '229.990', sku: 'b07', availability: 'InStock', InStock: 'InStock', mpn: 'M1' })).toEqual({
        price: [1, 0, 0],
        sku: [1, 0, 0],
        availability: [1, 0, 0],
        InStock: [1, 0, 0],
        OutOfStock: [0, 0, 0],
        brand: [0, 0, 1],
        gtin: [0, 0, 0],
        mpn: [0, 1, 0],
      });
    });
  });

  describe(articleBodyOf.name, () => {
    it('takes a body field by name, else the longest text and says so', () => {
      expect(articleBodyOf({ headline: 'H', body: 'B' })).toEqual({ body: 'B', field: 'body', fallback: false });
      expect(articleBodyOf({ content: ['p1', 'p2'] })).toEqual({ body: 'p1\np2', field: 'content', fallback: false });
      expect(articleBodyOf({ headline: 'Short', story: { paragraphs: 'A much longer text' } })).toEqual({
        body: 'A much longer text',
        field: 'story.paragraphs',
        fallback: true,
      });
      expect(articleBodyOf(undefined)).toEqual({ body: '', fallback: false });
    });
  });
});
