import { parseDocument } from 'htmlparser2';
import { isTag, type Element } from 'domhandler';
import { isPlainName, nameOfMarkup } from './field-names';

function elementOf(html: string): Element {
  const node = parseDocument(html).children.find(isTag);
  if (node === undefined) throw new Error(`no element in ${html}`);
  return node;
}

describe(nameOfMarkup.name, () => {
  it.each([
    ['<span class="product-price">', 'price'],
    ['<span class="product__price--sale">', 'price_sale'],
    ['<span itemprop="ratingValue">', 'rating_value'],
    ['<span data-testid="item-weight">', 'weight'],
    ['<span class="list-price">', 'price'],
    ['<p class="text-base price-note">', 'price_note'],
  ])('names %s %s', (html, name) => {
    expect(nameOfMarkup(elementOf(`${html}x</span>`))).toBe(name);
  });

  it.each([
    '<h1 class="text-3xl font-semibold">',
    '<span class="text-2xl font-bold text-red-700">',
    '<div class="flex items-baseline gap-2">',
    '<p class="text-base leading-7">',
    '<p class="lead">',
    '<a class="text-sm font-semibold hover:underline">',
    '<div class="col-md-6 mb-3 d-flex fw-bold">',
  ])('finds no name in utility classes: %s', (html) => {
    expect(nameOfMarkup(elementOf(`${html}x</p>`))).toBeUndefined();
  });
});

describe(isPlainName.name, () => {
  it.each(['price', 'regular_price', 'review_count', 'sku', 'gtin', 'date_published'])('accepts %s', (name) => {
    expect(isPlainName(name)).toBe(true);
  });

  it.each(['3xl', 'gap_2', 'p', 'xl', 'base', 'semibold', 'brdr', 'h1'])('refuses %s', (name) => {
    expect(isPlainName(name)).toBe(false);
  });
});
