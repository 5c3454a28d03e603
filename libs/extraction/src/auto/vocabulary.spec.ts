import { FIELD_GLOSSARY } from './field-glossary';
import { canonicalFieldName, familyOf, fieldNameOfLabel, glossaryEntryOf, meaningOf } from './vocabulary';

describe(meaningOf.name, () => {
  it.each([
    ['Product', 'name', 'name', 'text'],
    ['Product', 'offers.price', 'price', 'price'],
    ['Product', 'offers.lowPrice', 'price', 'price'],
    ['Product', 'offers.priceSpecification.price', 'price', 'price'],
    ['Product', 'offers.priceCurrency', 'currency', 'currency'],
    ['Product', 'offers.availability', 'availability', 'availability'],
    ['Product', 'gtin13', 'gtin', 'gtin'],
    ['Product', 'gtin', 'gtin', 'gtin'],
    ['Product', 'gtin8', 'gtin', 'gtin'],
    ['Product', 'gtin12', 'gtin', 'gtin'],
    ['Product', 'gtin14', 'gtin', 'gtin'],
    ['Product', 'sku', 'sku', 'text'],
    ['Product', 'mpn', 'mpn', 'text'],
    ['Product', 'brand', 'brand', 'text'],
    ['Product', 'brand.name', 'brand', 'text'],
    ['Product', 'aggregateRating.ratingValue', 'rating', 'rating'],
    ['Product', 'aggregateRating.reviewCount', 'review_count', 'number'],
    ['Product', 'aggregateRating.ratingCount', 'review_count', 'number'],
    ['Product', 'image', 'image_url', 'image_url'],
    ['ProductGroup', 'description', 'description', 'text'],
    ['Offer', 'price', 'price', 'price'],
    ['AggregateOffer', 'lowPrice', 'price', 'price'],
    ['Article', 'headline', 'headline', 'text'],
    ['NewsArticle', 'author.name', 'author', 'text'],
    ['BlogPosting', 'datePublished', 'date_published', 'date'],
    ['NewsArticle', 'dateModified', 'date_modified', 'date'],
    ['Article', 'articleBody', 'body', 'text'],
    ['og', 'title', 'title', 'text'],
    ['og', 'image', 'image_url', 'image_url'],
    ['og', 'description', 'description', 'text'],
    ['og', 'price:amount', 'price', 'price'],
    ['product', 'price:amount', 'price', 'price'],
    ['product', 'price:currency', 'currency', 'currency'],
    ['article', 'published_time', 'date_published', 'date'],
    ['meta', 'description', 'description', 'text'],
    ['meta', 'author', 'author', 'text'],
    ['meta', 'DC.date.issued', 'date_published', 'date'],
    ['Recipe', 'recipeIngredient', 'ingredients', 'text'],
    ['Recipe', 'totalTime', 'total_time', 'text'],
    ['MusicEvent', 'startDate', 'start_date', 'date'],
    ['Event', 'location.address.addressLocality', 'city', 'text'],
    ['JobPosting', 'title', 'job_title', 'text'],
    ['JobPosting', 'hiringOrganization.name', 'company', 'text'],
    ['JobPosting', 'baseSalary.value.minValue', 'salary_min', 'number'],
    ['Restaurant', 'telephone', 'phone', 'phone'],
    ['LocalBusiness', 'address.postalCode', 'postal_code', 'text'],
    ['LocalBusiness', 'geo.latitude', 'latitude', 'number'],
    ['Person', 'jobTitle', 'job_title', 'text'],
    ['Person', 'worksFor.name', 'employer', 'text'],
  ])('reads (%p, %p) as %p', (rootType, path, name, kind) => {
    expect(meaningOf(rootType, path)).toMatchObject({ name, kind });
  });

  it('marks list fields', () => {
    expect(meaningOf('Recipe', 'recipeInstructions.text')).toEqual({ name: 'instructions', kind: 'text', many: true });
    expect(meaningOf('Product', 'name')?.many).toBeUndefined();
  });

  it('marks weaker paths to a field as fallbacks', () => {
    expect(meaningOf('Product', 'productID')).toEqual({ name: 'sku', kind: 'text', fallback: true });
    expect(meaningOf('Product', 'offers.sku')?.fallback).toBe(true);
    expect(meaningOf('Product', 'sku')?.fallback).toBeUndefined();
  });

  it.each([
    ['Product', 'aggregateRating.bestRating'],
    ['Product', '@id'],
    ['Product', 'constructor'],
    ['WebSite', 'name'],
    ['BreadcrumbList', 'itemListElement.name'],
    ['og', 'type'],
    ['Article', 'publisher.logo.url'],
  ])('answers undefined for (%p, %p)', (rootType, path) => {
    expect(meaningOf(rootType, path)).toBeUndefined();
  });
});

describe(familyOf.name, () => {
  it('groups schema.org types', () => {
    expect(familyOf('Product')).toBe('product');
    expect(familyOf('Offer')).toBe('product');
    expect(familyOf('ReportageNewsArticle')).toBe('article');
    expect(familyOf('SocialMediaPosting')).toBe('article');
    expect(familyOf('SportsEvent')).toBe('event');
    expect(familyOf('Dentist')).toBe('other');
    expect(familyOf('WebPage')).toBeUndefined();
    expect(familyOf('og')).toBeUndefined();
  });
});

describe(fieldNameOfLabel.name, () => {
  it.each([
    ['Item #', 'item_number'],
    ['Item No.', 'item_number'],
    ['Weight (kg)', 'weight_kg'],
    ['Colour:', 'colour'],
    ['Fabricante', 'fabricante'],
    ['  Model Number  ', 'model_number'],
    ['Größe', 'grosse'],
    ['Fabricación', 'fabricacion'],
    ['Cotton %', 'cotton_percent'],
    ['Shipping & Returns', 'shipping_and_returns'],
    ['3D Model', '3d_model'],
    ['Product-Type', 'product_type'],
    ['Цвет', 'цвет'],
  ])('names %p %p', (label, name) => {
    expect(fieldNameOfLabel(label)).toBe(name);
  });

  it.each(['', '   ', '123', '---', '#', ': ', 'This label is far too long to be a field name at all'])(
    'answers undefined for %p',
    (label) => {
      expect(fieldNameOfLabel(label)).toBeUndefined();
    },
  );
});

describe(canonicalFieldName.name, () => {
  it.each([
    ['art_nr', 'text', ['573.4957', '12-88A'], 'sku'],
    ['asin', 'text', ['B07XJ8C8F5'], 'sku'],
    ['item_number', 'text', ['LB-10222'], 'sku'],
    ['manufacturer', 'text', ['Fenwick'], 'brand'],
    ['amount', 'price', ['249.49'], 'price'],
    ['stock', 'availability', ['InStock'], 'availability'],
    ['farbe', 'text', ['Schwarz'], 'color'],
    ['colour', 'text', ['Black'], 'color'],
    ['原價', 'price', ['1390'], 'regular_price'],
    ['uvp', 'price', ['59.99'], 'regular_price'],
    ['brez_ddv', 'price', ['12.40'], 'price_excluding_tax'],
    ['radno_vrijeme', 'text', ['PON-PET 08:30-15'], 'opening_hours'],
    ['herstellungsland', 'text', ['Deutschland'], 'country_of_origin'],
    ['tel', 'phone', ['+421 2 1234 5678'], 'phone'],
    ['код', 'text', ['1234567'], 'sku'],
  ] as const)('names %p with values %p as %p', (name, kind, values, expected) => {
    expect(canonicalFieldName(name, kind, values)).toBe(expected);
  });

  it('keeps the name when the values do not fit the meaning', () => {
    expect(canonicalFieldName('item_number', 'text', ['Ask in store'])).toBe('item_number');
    expect(canonicalFieldName('amount', 'text', ['two pieces'])).toBe('amount');
    expect(canonicalFieldName('normal', 'text', ['Normal fit'])).toBe('normal');
    expect(canonicalFieldName('tel', 'text', ['see below'])).toBe('tel');
  });

  it('keeps a label the glossary does not know as the page wrote it', () => {
    expect(canonicalFieldName('fassungsvermogen_in_ml', 'text', ['1000'])).toBe('fassungsvermogen_in_ml');
  });
});

describe('FIELD_GLOSSARY', () => {
  it('names every field in plain snake_case English', () => {
    for (const entry of FIELD_GLOSSARY) expect(entry.name).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
  });

  it('gives each word, as a label normalises to it, one meaning only', () => {
    const meanings = new Map<string, Set<string>>();
    for (const entry of FIELD_GLOSSARY) {
      for (const word of [entry.name, ...entry.words]) {
        const key = fieldNameOfLabel(word);
        expect(key).toBeDefined();
        meanings.set(key ?? word, (meanings.get(key ?? word) ?? new Set()).add(entry.name));
      }
    }
    const ambiguous = [...meanings].filter(([, names]) => names.size > 1).map(([word, names]) => `${word}: ${[...names].join(', ')}`);
    expect(ambiguous).toEqual([]);
  });

  it('finds a word however the page wrote it', () => {
    expect(glossaryEntryOf(fieldNameOfLabel('GRÖSSE:') ?? '')?.name).toBe('size');
    expect(glossaryEntryOf(fieldNameOfLabel('Země původu') ?? '')?.name).toBe('country_of_origin');
    expect(glossaryEntryOf(fieldNameOfLabel('원산지') ?? '')?.name).toBe('country_of_origin');
  });
});
