import { applyRecipe } from '../apply/apply-recipe';
import { parseRecipe, type Recipe } from '../recipe';
import { learnRecipe } from './learn-recipe';
import { categoryPage, productPage, shopProducts, type ShopProduct } from './synthetic-shop.test-support';

const PRODUCTS = shopProducts(14);
/** Learned from; the last products are never shown to the learner. */
const TRAINING = PRODUCTS.slice(0, 10);
const UNSEEN = PRODUCTS.slice(10);

function productPages(products: readonly ShopProduct[]): Array<{ url: string; html: string }> {
  return products.map((product) => productPage(product, PRODUCTS.indexOf(product), PRODUCTS));
}

const CATEGORY_PAGES = [
  categoryPage('Kitchen', 1, PRODUCTS.slice(0, 5)),
  categoryPage('Kitchen', 2, PRODUCTS.slice(5, 9)),
  categoryPage('Office', 1, PRODUCTS.slice(2, 8)),
  categoryPage('Garden', 1, PRODUCTS.slice(7, 12)),
];

function learnShop(products: readonly ShopProduct[] = TRAINING, previous?: Recipe, version = 1) {
  return learnRecipe({ domain: 'shop.test', pages: [...productPages(products), ...CATEGORY_PAGES], previous, version });
}

/** The record a product page shows, under the names the learner is expected to choose. */
function expectedRecord(product: ShopProduct): Record<string, unknown> {
  return {
    name: product.name,
    price: product.price,
    currency: 'EUR',
    sku: product.sku,
    brand: product.brand,
    availability: product.inStock ? 'InStock' : 'OutOfStock',
    weight: product.weight,
    ...(product.colour === undefined ? {} : { color: product.colour }),
  };
}

describe(learnRecipe.name, () => {
  describe('product pages', () => {
    const { recipe, report } = learnShop();

    it('reads every field of pages it never saw, with and without JSON-LD', () => {
      for (const product of UNSEEN) {
        const page = productPage(product, PRODUCTS.indexOf(product), PRODUCTS);
        expect({ url: page.url, record: applyRecipe(recipe, page) }).toEqual({ url: page.url, record: expectedRecord(product) });
      }
    });

    it('keeps ads, the deal box, related products and template rows out of the record', () => {
      const product = UNSEEN[1];
      const record = applyRecipe(recipe, productPage(product, PRODUCTS.indexOf(product), PRODUCTS));
      const text = JSON.stringify(record);
      expect(text).not.toMatch(/Sponsored|Deal of the day|coins|2 years/);
      for (const other of PRODUCTS.filter((candidate) => candidate !== product)) expect(text).not.toContain(other.name);
    });

    it('answers only the fields present on the page when an optional row is missing', () => {
      const product = UNSEEN.find((candidate) => candidate.colour === undefined) ?? UNSEEN[0];
      const record = applyRecipe(recipe, productPage(product, PRODUCTS.indexOf(product), PRODUCTS));
      expect(record).not.toHaveProperty('colour');
      expect(record.sku).toBe(product.sku);
    });

    it('names page types and reports what it learned', () => {
      expect(report.pages_analysed).toBe(TRAINING.length + CATEGORY_PAGES.length);
      expect(report.page_types.map((pageType) => pageType.name).sort()).toEqual(['listing', 'product']);
      const product = recipe.page_types.find((pageType) => pageType.name === 'product');
      expect(product?.url_patterns).toEqual(['/p/*']);
    });

    it('orders anchored extractors before positional ones', () => {
      for (const pageType of recipe.page_types) {
        for (const field of pageType.fields) {
          if (field.type !== 'value') continue;
          const css = field.extractors.filter((extractor) => extractor.type === 'css');
          const firstPositional = css.findIndex((extractor) => !extractor.anchored);
          if (firstPositional >= 0) expect(css.slice(firstPositional).every((extractor) => !extractor.anchored)).toBe(true);
        }
      }
    });

    it('learns a recipe that survives JSON and the schema', () => {
      expect(parseRecipe(JSON.parse(JSON.stringify(recipe)))).toEqual(recipe);
    });

    it('learns the same recipe from the same pages in any order', () => {
      const shuffled = learnRecipe({
        domain: 'shop.test',
        pages: [...CATEGORY_PAGES, ...productPages(TRAINING)].reverse(),
        version: 1,
      });
      expect(shuffled.recipe).toEqual(recipe);
    });
  });

  describe('listing pages', () => {
    it('answers the listed products as an array of records', () => {
      const { recipe } = learnShop();
      const page = categoryPage('Office', 2, PRODUCTS.slice(9, 13));
      const record = applyRecipe(recipe, page);
      expect(record.products).toEqual(
        PRODUCTS.slice(9, 13).map((product) => ({
          image: `https://shop.test/img/${product.slug}.jpg`,
          title: product.name,
          url: `https://shop.test/p/${product.slug}`,
          price: product.price,
        })),
      );
    });
  });

  describe('re-preparation', () => {
    const first = learnShop().recipe;

    it('keeps every name when the same site is learned again', () => {
      const again = learnShop(PRODUCTS.slice(2, 12), first, 2).recipe;
      const names = (recipe: Recipe) => recipe.page_types.map((pageType) => [pageType.name, pageType.fields.map((field) => field.name)]);
      expect(names(again)).toEqual(names(first));
      expect(again.version).toBe(2);
      expect(again.page_types.flatMap((pageType) => pageType.fields).every((field) => field.status === 'active')).toBe(true);
    });

    it('keeps a field that vanished as dormant, and never extracts it', () => {
      const withoutWeight = learnRecipe({
        domain: 'shop.test',
        pages: productPages(TRAINING).map((page) => ({
          ...page,
          html: page.html.replace(/<tr><th>Weight<\/th><td>[^<]*<\/td><\/tr>/, ''),
        })),
        previous: first,
        version: 2,
      }).recipe;
      const product = withoutWeight.page_types.find((pageType) => pageType.name === 'product');
      expect(product?.fields.find((field) => field.name === 'weight')?.status).toBe('dormant');
      const listing = withoutWeight.page_types.find((pageType) => pageType.name === 'listing');
      expect(listing?.fields.every((field) => field.status === 'dormant')).toBe(true);
      const page = productPage(UNSEEN[0], PRODUCTS.indexOf(UNSEEN[0]), PRODUCTS);
      expect(applyRecipe(withoutWeight, page)).not.toHaveProperty('weight');
    });

    it('gives a new field a name no earlier field had', () => {
      const relabelled = learnRecipe({
        domain: 'shop.test',
        // "Weight" now holds what used to be the warranty: another meaning, so not the old name.
        pages: productPages(TRAINING).map((page) =>
          page.html.includes('Weight') ? { ...page, html: page.html.replace(/<th>Weight<\/th>/, '<th>Mass</th>') } : page,
        ),
        previous: first,
        version: 2,
      }).recipe;
      const names = relabelled.page_types
        .find((pageType) => pageType.name === 'product')
        ?.fields.map((field) => [field.name, field.status]);
      expect(names).toEqual(
        expect.arrayContaining([
          ['weight', 'dormant'],
          ['mass', 'active'],
        ]),
      );
    });
  });

  describe('labels in other languages', () => {
    /** A Taiwanese shop's product page: labels in Chinese, the list price without a currency. */
    function taiwanesePage(id: number, listPrice: string, weight: string): { url: string; html: string } {
      return {
        url: `https://fresh.example.tw/item_${id}.html`,
        html: `<html><head><title>Item ${id}</title></head><body><h1>Item ${id}</h1>
          <table><tr><th>原價</th><td>${listPrice}</td></tr><tr><th>商品重量</th><td>${weight}</td></tr><tr><th>顏色</th><td>${id % 2 ? '紅' : '藍'}</td></tr></table>
          </body></html>`,
      };
    }

    it('names the fields in plain English and reads a price the label names, though it has no currency', () => {
      const pages = [taiwanesePage(1, '1,390', '100g'), taiwanesePage(2, '45', '250g'), taiwanesePage(3, '2,100', '1kg')];
      const { recipe } = learnRecipe({ domain: 'fresh.example.tw', pages, version: 1 });
      const fields = recipe.page_types.flatMap((pageType) => pageType.fields);
      expect(fields.find((field) => field.name === 'regular_price')).toMatchObject({ type: 'value', kind: 'price' });
      expect(applyRecipe(recipe, taiwanesePage(9, '3,200', '2kg'))).toMatchObject({ regular_price: '3200', weight: '2kg', color: '紅' });
    });
  });

  describe('plain shop pages', () => {
    interface PlainProduct {
      readonly slug: string;
      readonly name: string;
      readonly price: string;
    }

    /**
     * A product page with no embedded data: a breadcrumb ending in the product's name, the name
     * again in the `h1`, the price in a `span.amt`, a shipping note with a price of its own.
     */
    function plainPage(product: PlainProduct, lang: string, shipping: string): { url: string; html: string } {
      return {
        url: `https://laden.example/p/${product.slug}`,
        html: `<!doctype html><html lang="${lang}"><head><title>${product.name} – Laden</title></head><body>
          <header><a href="/">Laden</a></header>
          <div class="crumbs"><a href="/">Start</a> / <a href="/c/haushalt">Haushalt</a> / <span>${product.name}</span></div>
          <main>
            <h1>${product.name}</h1>
            <div class="buy"><span class="amt">${product.price}</span></div>
            <p class="shipping">${shipping}</p>
          </main>
          <footer>© Laden GmbH</footer>
          </body></html>`,
      };
    }

    const GERMAN: readonly PlainProduct[] = [
      { slug: 'wasserkocher-1', name: 'Wasserkocher Classic', price: '23,99 €' },
      { slug: 'toaster-2', name: 'Toaster Duo', price: '31,50 €' },
      { slug: 'kuehlschrank-3', name: 'Kühlschrank XL', price: '1.234,56 €' },
      { slug: 'standmixer-4', name: 'Standmixer Pro', price: '89,00 €' },
    ];
    const germanPage = (product: PlainProduct) => plainPage(product, 'de', 'zzgl. Versand 4,95 €');

    it('names the heading that holds the product `name` and its price `price`, not `crumbs` and `amt`', () => {
      const { recipe } = learnRecipe({ domain: 'laden.example', pages: GERMAN.map(germanPage), version: 1 });
      const unseen = { slug: 'heizluefter-5', name: 'Heizlüfter Mini', price: '39,90 €' };
      expect(applyRecipe(recipe, germanPage(unseen))).toEqual({ name: unseen.name, price: '39.90', currency: 'EUR' });
    });

    it('keeps a breadcrumb out of the record where it names the product otherwise than the heading', () => {
      const shortCrumb = (product: PlainProduct) => {
        const page = germanPage(product);
        return { ...page, html: page.html.replace(`<span>${product.name}</span>`, `<span>${product.name.split(' ')[0]}</span>`) };
      };
      const { recipe } = learnRecipe({ domain: 'laden.example', pages: GERMAN.map(shortCrumb), version: 1 });
      const names = recipe.page_types.flatMap((pageType) => pageType.fields.map((field) => field.name));
      expect(names.sort()).toEqual(['name', 'price']);
    });

    it('reads a price with three digits after its mark by the decimal mark the page writes its other prices with', () => {
      const { recipe } = learnRecipe({ domain: 'laden.example', pages: GERMAN.map(germanPage), version: 1 });
      // Heating oil is priced per litre to a tenth of a cent; the shipping note says the page's decimal mark is a comma.
      const perLitre = germanPage({ slug: 'heizoel-6', name: 'Heizöl Premium (pro Liter)', price: '1,089 €' });
      // The same page's point groups thousands, as in `1.234,56 €`.
      const tankFull = germanPage({ slug: 'heizoel-7', name: 'Heizöl Premium (Tankfüllung)', price: '23.450 €' });
      expect(applyRecipe(recipe, perLitre)).toMatchObject({ price: '1.089' });
      expect(applyRecipe(recipe, tankFull)).toMatchObject({ price: '23450' });
    });
  });

  describe('small domains', () => {
    it('keeps only fields named by embedded data or labels when a type has one or two pages', () => {
      const pages = productPages(PRODUCTS.slice(0, 2));
      const { recipe } = learnRecipe({ domain: 'shop.test', pages, version: 1 });
      const fields = recipe.page_types.flatMap((pageType) => pageType.fields);
      for (const field of fields) {
        expect(field.meaning.some((key) => key.startsWith('embedded:') || key.startsWith('label:'))).toBe(true);
      }
      const unseen = productPage(PRODUCTS[4], 4, PRODUCTS);
      expect(applyRecipe(recipe, unseen)).toMatchObject({ sku: PRODUCTS[4].sku, price: PRODUCTS[4].price, brand: PRODUCTS[4].brand });
    });
  });
});
