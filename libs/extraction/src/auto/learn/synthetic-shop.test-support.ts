/**
 * A templated synthetic shop with known records, for the learner's and applier's specs: product
 * pages with a label table, an optional row, an ad and a related-products block that must not
 * leak into fields, JSON-LD on some pages only, and category pages listing products.
 */

export interface ShopProduct {
  readonly slug: string;
  readonly name: string;
  readonly price: string;
  readonly sku: string;
  readonly brand: string;
  readonly colour?: string;
  readonly weight: string;
  readonly inStock: boolean;
  readonly jsonLd: boolean;
}

const BRANDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli'];
const COLOURS = ['Red', 'Blue', undefined, 'Green', undefined, 'Black'];
const NOUNS = ['Kettle', 'Toaster', 'Blender', 'Lamp', 'Chair', 'Desk', 'Mug', 'Clock', 'Fan', 'Heater', 'Radio', 'Mixer'];

/** `count` products; every third has no colour, even ones carry JSON-LD, every fifth is sold out. */
export function shopProducts(count: number): ShopProduct[] {
  return Array.from({ length: count }, (_, i) => ({
    slug: `${NOUNS[i % NOUNS.length].toLowerCase()}-${100 + i}`,
    name: `${BRANDS[i % BRANDS.length]} ${NOUNS[i % NOUNS.length]} ${i + 1}`,
    price: `${10 + i * 7}.${String((i * 13) % 100).padStart(2, '0')}`,
    sku: `SK-${4000 + i * 17}`,
    brand: BRANDS[i % BRANDS.length],
    colour: COLOURS[i % COLOURS.length],
    weight: `${(i % 4) + 1}.5 kg`,
    inStock: i % 5 !== 4,
    jsonLd: i % 2 === 0,
  }));
}

export const SHOP = 'https://shop.test';

function chrome(title: string, main: string, index: number): string {
  return `<!doctype html><html lang="en"><head><title>${title} | Shop</title></head><body>
<header class="site-header"><a class="logo" href="/">Shop</a>
  <nav class="main-nav"><ul><li><a href="/c/kitchen">Kitchen</a></li><li><a href="/c/office">Office</a></li><li><a href="/c/garden">Garden</a></li></ul></nav>
</header>
<div class="box"><p>Deal of the day — ${NOUNS[(index * 5 + 3) % NOUNS.length]} for ${index + 2} coins</p></div>
<div id="ad-top" class="ad-banner"><span>Sponsored: ${BRANDS[(index + 2) % BRANDS.length]} sale ${index * 3}%</span></div>
${main}
<footer class="site-footer"><p>© Shop Ltd</p><p>Customer service: help@shop.test</p></footer>
</body></html>`;
}

/** A product page: `main` with the record, then a related-products grid of other products. */
export function productPage(product: ShopProduct, index: number, all: readonly ShopProduct[]): { url: string; html: string } {
  const related = [1, 2, 3, 4].map((offset) => all[(index + offset) % all.length]);
  const jsonLd = product.jsonLd
    ? `<script type="application/ld+json">${JSON.stringify({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: product.name,
        sku: product.sku,
        brand: { '@type': 'Brand', name: product.brand },
        offers: {
          '@type': 'Offer',
          price: product.price,
          priceCurrency: 'EUR',
          availability: product.inStock ? 'https://schema.org/InStock' : 'https://schema.org/OutOfStock',
        },
      })}</script>`
    : '';
  const colourRow = product.colour === undefined ? '' : `<tr><th>Colour</th><td>${product.colour}</td></tr>`;
  const main = `${jsonLd}
<main class="product-main">
  <div class="breadcrumbs"><a href="/">Home</a> › <a href="/c/kitchen">Kitchen</a></div>
  <h1 class="product-title">${product.name}</h1>
  <div class="buy-box">
    <span class="price">€${product.price}</span>
    <div class="stock">${product.inStock ? 'In stock' : 'Out of stock'}</div>
    <button>Add to basket</button>
  </div>
  <table class="specs">
    <tr><th>SKU</th><td>${product.sku}</td></tr>
    <tr><th>Brand</th><td>${product.brand}</td></tr>
    ${colourRow}
    <tr><th>Weight</th><td>${product.weight}</td></tr>
    <tr><th>Warranty</th><td>2 years</td></tr>
  </table>
</main>
<div class="grid">${related
    .map(
      (other) =>
        `<div class="tile"><a href="/p/${other.slug}"><span class="tile-name">${other.name}</span></a><span class="price">€${other.price}</span></div>`,
    )
    .join('')}</div>`;
  return { url: `${SHOP}/p/${product.slug}`, html: chrome(product.name, main, index) };
}

/** A category page listing `products`. */
export function categoryPage(category: string, page: number, products: readonly ShopProduct[]): { url: string; html: string } {
  const main = `<main class="category">
  <h1 class="category-title">${category} — page ${page}</h1>
  <ul class="product-list">${products
    .map(
      (product) =>
        `<li class="product-card"><img src="/img/${product.slug}.jpg" alt=""><a class="card-title" href="/p/${product.slug}">${product.name}</a><span class="price">€${product.price}</span></li>`,
    )
    .join('\n')}</ul>
</main>`;
  return { url: `${SHOP}/c/${category.toLowerCase()}?page=${page}`, html: chrome(category, main, page) };
}
