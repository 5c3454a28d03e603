import { applyRecipe } from '../apply/apply-recipe';
import { learnRecipe } from './learn-recipe';

const NAMES = [
  'Oak Stool',
  'Tin Lamp',
  'Wool Rug',
  'Clay Jug',
  'Felt Hat',
  'Cork Mat',
  'Jute Bag',
  'Iron Pan',
  'Pine Shelf',
  'Glass Vase',
  'Reed Basket',
];
const BRANDS = ['Aldwick', 'Corvel', 'Fenwick'];
const COLOURS = ['Rust', 'Oat', 'Slate'];
const STOCK = ['In stock', 'Available for pre-order', 'Only a few left', 'Sold out'];
const slug = (name: string): string => name.toLowerCase().replace(/\s+/g, '-');

interface Item {
  name: string;
  path: string;
  price: string;
  sku: string;
  brand: string;
  colour: string;
  stock: string;
  reviews: number;
}

const ITEMS: Item[] = NAMES.map((name, i) => ({
  name,
  path: `/p/${slug(name)}`,
  price: `${10 + i * 7}.${i % 2 === 0 ? '50' : '95'}`,
  sku: `AB-${1000 + i * 37}`,
  brand: BRANDS[i % BRANDS.length],
  colour: COLOURS[(i + 1) % COLOURS.length],
  stock: STOCK[i % STOCK.length],
  reviews: 3 + i * 11,
}));

/** A product page whose facts come in a different order per page, with tiles of other products around it. */
function productPage(item: Item, index: number): { url: string; html: string } {
  const facts = [
    ['Colour', item.colour],
    ['Availability', item.stock],
    ['Warranty', `${1 + (index % 3)} years`],
  ];
  const rotated = [...facts.slice(index % 3), ...facts.slice(0, index % 3)];
  const others = [ITEMS[(index + 1) % ITEMS.length], ITEMS[(index + 4) % ITEMS.length]];
  const tile = (other: Item): string =>
    `<div class="tile"><a href="${other.path}">${other.name}</a><span class="tile-price">€${other.price}</span></div>`;
  return {
    url: `https://shop.test${item.path}`,
    html: `<!doctype html><html lang="en"><head><title>${item.name}</title></head><body>
<section class="seen"><h2>You looked at</h2><div class="row">${others.map(tile).join('')}</div></section>
<main><div class="product">
  <p class="maker">by ${item.brand}</p>
  <h1 class="name">${item.name}</h1>
  <p class="cost">€${item.price}</p>
  <p class="code">SKU ${item.sku}</p>
  <p class="score"><a href="#reviews">(${item.reviews} reviews)</a></p>
  <dl class="facts">${rotated.map(([label, value]) => `<dt>${label}</dt><dd>${value}</dd>`).join('')}</dl>
</div>
<p class="more">More: ${others.map((other) => `<a href="${other.path}">${other.name}</a>`).join(', ')}</p>
</main></body></html>`,
  };
}

const AUTHORS = ['Maya Okafor', 'Lena Fischer', 'Tomasz Nowak'];
const SENTENCES = [
  'The hinge loosens slightly after the first month of daily use in a cold workshop.',
  'Cleaning takes under two minutes with warm water and a soft brush from the drawer.',
  'Repairs are simple with a single hex key and a little patience on a quiet evening.',
  'The finish scratches less than the older model did after a winter in the shed.',
  'A spare filter is worth keeping in the drawer for the day the first one clogs up.',
];

function post(index: number): { url: string; html: string; truth: Record<string, string> } {
  const headline = `Field note ${index + 1}: looking after a ${NAMES[index].toLowerCase()}`;
  const date = `2024-0${1 + (index % 9)}-1${index % 10}`;
  const paragraphs = Array.from(
    { length: 4 },
    (_, p) => `${SENTENCES[(index + p) % 5]} ${SENTENCES[(index + p + 2) % 5]} ${SENTENCES[(index + p + 4) % 5]}`,
  );
  const related = [1, 2, 3].map((k) => (index + k) % NAMES.length);
  const url = `https://notes.test/2024/${index + 1}/note-${index + 1}/`;
  return {
    url,
    truth: { headline, author: AUTHORS[index % 3], date_published: date, body: paragraphs.join(' ') },
    html: `<!doctype html><html lang="en"><head><title>${headline} – Notes</title></head><body>
<header class="site-header"><a href="/">Notes</a></header>
<main><article class="post">
  <h1 class="entry-title">${headline}</h1>
  <div class="entry-meta"><span class="posted-on">Posted on <time datetime="${date}">${date}</time></span> <span class="byline">by <span class="author vcard"><a class="url fn n" href="/">${AUTHORS[index % 3]}</a></span></span></div>
  <div class="entry-content">${paragraphs.map((text) => `<p>${text}</p>`).join('')}</div>
</article>
<section class="more-posts"><h2>Read next</h2>${related
      .map(
        (k) =>
          `<div class="teaser"><h3><a href="/2024/${k + 1}/note-${k + 1}/">Field note ${k + 1}</a></h3><p>${SENTENCES[k % 5]}</p></div>`,
      )
      .join('')}</section>
<div id="comments"><h2>${index % 3} thoughts</h2>${Array.from({ length: index % 3 }, (_, c) => `<div class="comment"><b>Reader ${c}</b><time datetime="2025-01-0${c + 1}">2025-01-0${c + 1}</time><p>${SENTENCES[(index + c) % 5]}</p></div>`).join('')}</div>
</main></body></html>`,
  };
}

describe(learnRecipe.name, () => {
  describe('record boundaries', () => {
    const pages = ITEMS.slice(0, 9).map(productPage);
    const { recipe } = learnRecipe({ domain: 'shop.test', pages, version: 1 });
    const unseen = ITEMS.slice(9).map((item, i) => ({ item, record: applyRecipe(recipe, productPage(item, 9 + i)) }));

    it('never takes a label cell for a value when label rows change order', () => {
      for (const { record } of unseen) {
        expect(Object.values(record)).not.toEqual(expect.arrayContaining(['Colour']));
        expect(Object.values(record)).not.toEqual(expect.arrayContaining(['Availability']));
        expect(Object.values(record)).not.toEqual(expect.arrayContaining(['Warranty']));
      }
    });

    it('leaves tiles and runs of links to other products out of the record', () => {
      for (const { item, record } of unseen) {
        const others = ITEMS.filter((other) => other !== item);
        for (const value of Object.values(record)) {
          expect(typeof value).toBe('string');
          expect(others.some((other) => String(value).includes(other.name) || value === other.price)).toBe(false);
        }
      }
    });

    it('reads the template words around a value as template, and stock words as schema.org terms', () => {
      for (const { item, record } of unseen) {
        expect(record).toMatchObject({
          name: item.name,
          price: item.price,
          sku: item.sku,
          review_count: String(item.reviews),
          brand: item.brand,
          color: item.colour,
        });
        expect(record.availability).toBe(
          {
            'In stock': 'InStock',
            'Available for pre-order': 'PreOrder',
            'Only a few left': 'LimitedAvailability',
            'Sold out': 'OutOfStock',
          }[item.stock],
        );
      }
    });
  });

  describe('article pages without embedded data', () => {
    const posts = Array.from({ length: 11 }, (_, i) => post(i));
    const { recipe } = learnRecipe({ domain: 'notes.test', pages: posts.slice(0, 9).map(({ url, html }) => ({ url, html })), version: 1 });

    it('answers the headline, author, date and body, and nothing from comments or teasers', () => {
      expect(recipe.page_types.map((type) => type.name)).toEqual(['article']);
      for (const { url, html, truth } of posts.slice(9)) {
        const record = applyRecipe(recipe, { url, html });
        expect(Object.keys(record).sort()).toEqual(['author', 'body', 'date_published', 'headline']);
        expect(record).toEqual(truth);
      }
    });
  });
});
