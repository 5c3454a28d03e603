import { FIELD_GLOSSARY, type GlossaryEntry } from './field-glossary';
import type { ValueKind } from './values';

/** The plain-English field an embedded value fills, and the kind its values are normalised as. */
export interface FieldMeaning {
  /** Lower snake_case field name: `price`, `review_count`, `date_published`. */
  name: string;
  kind: ValueKind;
  /** The field is a list (a recipe's ingredients): every value of the path, not only the first. */
  many?: boolean;
  /**
   * A weaker path to the field, for when no other path gives it: an offer's variant `sku` where the
   * product has its own, `productID`, an AggregateOffer's `lowPrice`.
   */
  fallback?: boolean;
}

type Paths = Readonly<Record<string, FieldMeaning>>;

function field(name: string, kind: ValueKind = 'text', many = false): FieldMeaning {
  return many ? { name, kind, many } : { name, kind };
}

function fallback(name: string, kind: ValueKind = 'text'): FieldMeaning {
  return { name, kind, fallback: true };
}

/** Every path in `paths` again under `prefix.` (an event's `location.address.*`). */
function under(prefix: string, paths: Paths): Paths {
  return Object.fromEntries(Object.entries(paths).map(([path, meaning]) => [`${prefix}.${path}`, meaning]));
}

const ADDRESS: Paths = {
  address: field('address'),
  'address.streetAddress': field('street_address'),
  'address.addressLocality': field('city'),
  'address.addressRegion': field('region'),
  'address.postalCode': field('postal_code'),
  'address.addressCountry': field('country'),
  'address.addressCountry.name': field('country'),
};

const RATING: Paths = {
  'aggregateRating.ratingValue': field('rating', 'rating'),
  'aggregateRating.reviewCount': field('review_count', 'number'),
  'aggregateRating.ratingCount': field('review_count', 'number'),
};

/** An offer's terms, as written under a product's (or event's) `offers`. */
const OFFER: Paths = {
  price: field('price', 'price'),
  lowPrice: fallback('price', 'price'),
  'priceSpecification.price': field('price', 'price'),
  priceCurrency: field('currency', 'currency'),
  'priceSpecification.priceCurrency': field('currency', 'currency'),
  highPrice: field('high_price', 'price'),
  availability: field('availability', 'availability'),
  itemCondition: field('condition'),
  'seller.name': field('seller'),
  // An AggregateOffer lists its offers under its own `offers`.
  'offers.price': fallback('price', 'price'),
  'offers.priceCurrency': fallback('currency', 'currency'),
  'offers.availability': fallback('availability', 'availability'),
};

/** What any schema.org item may say: a shop, a restaurant, an organisation, a video. */
const COMMON: Paths = {
  name: field('name'),
  description: field('description'),
  image: field('image_url', 'image_url'),
  'image.url': field('image_url', 'image_url'),
  'image.contentUrl': field('image_url', 'image_url'),
  thumbnailUrl: field('image_url', 'image_url'),
  logo: field('logo_url', 'image_url'),
  'logo.url': field('logo_url', 'image_url'),
  url: field('url', 'url'),
  telephone: field('phone', 'phone'),
  email: field('email', 'email'),
  ...ADDRESS,
  'geo.latitude': field('latitude', 'number'),
  'geo.longitude': field('longitude', 'number'),
  openingHours: field('opening_hours', 'text', true),
  priceRange: field('price_range'),
  servesCuisine: field('cuisine'),
  uploadDate: field('date_published', 'date'),
  duration: field('duration'),
  'author.name': field('author'),
  author: field('author'),
  datePublished: field('date_published', 'date'),
  ...RATING,
  ...under('offers', OFFER),
};

const PRODUCT: Paths = {
  ...COMMON,
  sku: field('sku'),
  'offers.sku': fallback('sku'),
  productID: fallback('sku'),
  mpn: field('mpn'),
  'offers.mpn': fallback('mpn'),
  // Offer terms some shops write on the product itself.
  price: fallback('price', 'price'),
  priceCurrency: fallback('currency', 'currency'),
  availability: fallback('availability', 'availability'),
  ...Object.fromEntries(
    ['gtin', 'gtin8', 'gtin12', 'gtin13', 'gtin14', 'isbn'].flatMap((key) => [
      [key, field('gtin', 'gtin')],
      [`offers.${key}`, fallback('gtin', 'gtin')],
    ]),
  ),
  brand: field('brand'),
  'brand.name': field('brand'),
  manufacturer: field('manufacturer'),
  'manufacturer.name': field('manufacturer'),
  model: field('model'),
  'model.name': field('model'),
  color: field('color'),
  material: field('material'),
  size: field('size'),
  category: field('category'),
};

const ARTICLE: Paths = {
  description: COMMON.description,
  image: COMMON.image,
  'image.url': COMMON['image.url'],
  thumbnailUrl: COMMON.thumbnailUrl,
  url: COMMON.url,
  headline: field('headline'),
  author: field('author'),
  'author.name': field('author'),
  datePublished: field('date_published', 'date'),
  dateModified: field('date_modified', 'date'),
  dateCreated: field('date_created', 'date'),
  articleBody: field('body'),
  'publisher.name': field('publisher'),
  articleSection: field('section'),
  keywords: field('keywords'),
  inLanguage: field('language'),
  wordCount: field('word_count', 'number'),
};

const RECIPE: Paths = {
  ...COMMON,
  dateModified: ARTICLE.dateModified,
  recipeIngredient: field('ingredients', 'text', true),
  ingredients: field('ingredients', 'text', true),
  recipeInstructions: field('instructions', 'text', true),
  'recipeInstructions.text': field('instructions', 'text', true),
  'recipeInstructions.itemListElement.text': field('instructions', 'text', true),
  prepTime: field('prep_time'),
  cookTime: field('cook_time'),
  totalTime: field('total_time'),
  recipeYield: field('yield'),
  recipeCategory: field('category'),
  recipeCuisine: field('cuisine'),
  'nutrition.calories': field('calories'),
  keywords: ARTICLE.keywords,
};

const EVENT: Paths = {
  ...COMMON,
  startDate: field('start_date', 'date'),
  endDate: field('end_date', 'date'),
  'location.name': field('venue'),
  location: field('venue'),
  ...under('location', ADDRESS),
  eventStatus: field('event_status'),
  eventAttendanceMode: field('attendance_mode'),
  'organizer.name': field('organizer'),
  'performer.name': field('performer', 'text', true),
};

const JOB_POSTING: Paths = {
  title: field('job_title'),
  description: COMMON.description,
  url: COMMON.url,
  datePosted: field('date_posted', 'date'),
  validThrough: field('valid_through', 'date'),
  employmentType: field('employment_type'),
  hiringOrganization: field('company'),
  'hiringOrganization.name': field('company'),
  'hiringOrganization.logo': field('logo_url', 'image_url'),
  ...under('jobLocation', ADDRESS),
  jobLocationType: field('location_type'),
  'baseSalary.currency': field('currency', 'currency'),
  salaryCurrency: field('currency', 'currency'),
  'baseSalary.value': field('salary', 'number'),
  'baseSalary.value.value': field('salary', 'number'),
  'baseSalary.value.minValue': field('salary_min', 'number'),
  'baseSalary.value.maxValue': field('salary_max', 'number'),
  'baseSalary.value.unitText': field('salary_period'),
  industry: field('industry'),
  occupationalCategory: field('category'),
};

const PERSON: Paths = {
  ...COMMON,
  jobTitle: field('job_title'),
  'worksFor.name': field('employer'),
  birthDate: field('birth_date', 'date'),
};

/** OpenGraph (`og:`), its product and article namespaces, Twitter cards; paths lower-case. */
const OPEN_GRAPH: Readonly<Record<string, Paths>> = {
  og: {
    title: field('title'),
    description: field('description'),
    image: field('image_url', 'image_url'),
    'image:url': field('image_url', 'image_url'),
    'image:secure_url': field('image_url', 'image_url'),
    url: field('url', 'url'),
    site_name: field('site_name'),
    'price:amount': field('price', 'price'),
    'price:currency': field('currency', 'currency'),
    availability: field('availability', 'availability'),
    brand: field('brand'),
    upc: field('gtin', 'gtin'),
    ean: field('gtin', 'gtin'),
    retailer_item_id: field('sku'),
  },
  product: {
    'price:amount': field('price', 'price'),
    'price:currency': field('currency', 'currency'),
    availability: field('availability', 'availability'),
    brand: field('brand'),
    retailer_item_id: field('sku'),
    upc: field('gtin', 'gtin'),
    ean: field('gtin', 'gtin'),
    gtin: field('gtin', 'gtin'),
    mfr_part_no: field('mpn'),
    condition: field('condition'),
    category: field('category'),
  },
  article: {
    published_time: field('date_published', 'date'),
    modified_time: field('date_modified', 'date'),
    author: field('author'),
    section: field('section'),
  },
  twitter: {
    title: field('title'),
    description: field('description'),
    image: field('image_url', 'image_url'),
    'image:src': field('image_url', 'image_url'),
  },
  meta: {
    title: field('title'),
    'dc.title': field('title'),
    citation_title: field('title'),
    'parsely-title': field('title'),
    description: field('description'),
    'dc.description': field('description'),
    author: field('author'),
    'dc.creator': field('author'),
    citation_author: field('author'),
    'parsely-author': field('author'),
    'sailthru.author': field('author'),
    byl: field('author'),
    keywords: field('keywords'),
    date: field('date_published', 'date'),
    pubdate: field('date_published', 'date'),
    publishdate: field('date_published', 'date'),
    publish_date: field('date_published', 'date'),
    'publish-date': field('date_published', 'date'),
    'dc.date': field('date_published', 'date'),
    'dc.date.issued': field('date_published', 'date'),
    'dcterms.date': field('date_published', 'date'),
    'dcterms.created': field('date_published', 'date'),
    citation_publication_date: field('date_published', 'date'),
    citation_date: field('date_published', 'date'),
    'sailthru.date': field('date_published', 'date'),
    'parsely-pub-date': field('date_published', 'date'),
  },
};

/** Types that are products to a shopper (schema.org's Product subtypes and the usual extras). */
const PRODUCT_TYPES: ReadonlySet<string> = new Set([
  'Product',
  'ProductGroup',
  'IndividualProduct',
  'ProductModel',
  'SomeProducts',
  'Vehicle',
  'Car',
  'Motorcycle',
  'Book',
]);
const OFFER_TYPES: ReadonlySet<string> = new Set(['Offer', 'AggregateOffer']);
/** Page furniture: site search, breadcrumbs, the page itself. Nothing in them is worth a field. */
const FURNITURE_TYPES: ReadonlySet<string> = new Set([
  'WebSite',
  'WebPage',
  'BreadcrumbList',
  'ListItem',
  'ItemList',
  'SiteNavigationElement',
  'SearchAction',
  'EntryPoint',
  'ReadAction',
  'WPHeader',
  'WPFooter',
  'WPSideBar',
]);

/** The kind of thing an embedded type is, as `meaningOf` and the generic record group them. */
export type TypeFamily = 'product' | 'article' | 'recipe' | 'event' | 'job' | 'person' | 'other';

/**
 * The family of a schema.org type (`NewsArticle` → `article`, `MusicEvent` → `event`, `Offer` →
 * `product`), `other` for the rest (shops, organisations, videos), undefined for page furniture
 * (`WebSite`, `BreadcrumbList`) and OpenGraph/meta roots.
 */
export function familyOf(rootType: string): TypeFamily | undefined {
  if (FURNITURE_TYPES.has(rootType) || rootType in OPEN_GRAPH || rootType === '') return undefined;
  if (PRODUCT_TYPES.has(rootType) || OFFER_TYPES.has(rootType)) return 'product';
  if (rootType === 'Recipe') return 'recipe';
  if (rootType === 'JobPosting') return 'job';
  if (rootType === 'Person') return 'person';
  if (/(?:Article|Posting)$/.test(rootType) || rootType === 'Report') return 'article';
  if (/Event$/.test(rootType) || rootType === 'Festival') return 'event';
  return 'other';
}

const PATHS_BY_FAMILY: Readonly<Record<TypeFamily, Paths>> = {
  product: PRODUCT,
  article: ARTICLE,
  recipe: RECIPE,
  event: EVENT,
  job: JOB_POSTING,
  person: PERSON,
  other: COMMON,
};

/**
 * The field an embedded fact means, or undefined for paths not worth a field (`@id`s, a rating's
 * `bestRating`, anything in breadcrumbs or the `WebSite` item). For example `('Product',
 * 'offers.price')` → `{ name: 'price', kind: 'price' }`, `('NewsArticle', 'author.name')` →
 * `author`, `('og', 'price:amount')` → `price`, `('meta', 'description')` → `description`.
 *
 * @param rootType the fact's root type: a schema.org type without its vocabulary URL (`Product`),
 *   or `og`, `product`, `article`, `twitter` (OpenGraph-style meta tags) or `meta` (plain `<meta name>`)
 * @param path dotted property path from the root (`aggregateRating.ratingValue`); OpenGraph and
 *   meta paths in any case
 */
export function meaningOf(rootType: string, path: string): FieldMeaning | undefined {
  const openGraph = OPEN_GRAPH[rootType];
  if (openGraph !== undefined) return own(openGraph, path.toLowerCase());
  const family = familyOf(rootType);
  if (family === undefined) return undefined;
  // An Offer at the root says what it says under a product's `offers`.
  const fullPath = OFFER_TYPES.has(rootType) ? `offers.${path}` : path;
  return own(PATHS_BY_FAMILY[family], fullPath);
}

/** `paths[key]`, not an inherited property (`constructor`, `toString`). */
function own(paths: Paths, key: string): FieldMeaning | undefined {
  return Object.hasOwn(paths, key) ? paths[key] : undefined;
}

/** Longest field name, in characters: a longer label is a sentence, not a name. */
const MAX_FIELD_NAME = 40;
/** Symbols that carry meaning in a label, spelled out: `Item #` is the item number. */
const SYMBOL_WORDS: ReadonlyArray<readonly [RegExp, string]> = [
  [/#/g, ' number '],
  [/№/g, ' number '],
  [/(?<!\p{L})(?:no|nr)\.(?=\s*(?:$|[:)]))/giu, ' number '],
  [/%/g, ' percent '],
  [/&/g, ' and '],
  [/\+/g, ' plus '],
  [/ß/g, 'ss'],
];

/**
 * A plain-English snake_case field name from a label on a page (`Item #` → `item_number`,
 * `Weight (kg)` → `weight_kg`, `Colour:` → `colour`, `Fabricante` → `fabricante`, `Größe` →
 * `grosse`): lower-case, diacritics dropped, every run of other characters one underscore.
 * Undefined when the label is not a usable name: empty, without a letter, or longer than 40
 * characters.
 */
export function fieldNameOfLabel(label: string): string | undefined {
  const trimmed = label.replace(/[\s:：*]+$/u, '').trim();
  if (trimmed === '' || trimmed.length > MAX_FIELD_NAME || !/\p{L}/u.test(trimmed)) return undefined;
  let name = trimmed;
  for (const [symbol, word] of SYMBOL_WORDS) name = name.replace(symbol, word);
  name = name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  return name === '' || name.length > MAX_FIELD_NAME ? undefined : name;
}

/** The glossary by word, each word as `fieldNameOfLabel` writes it. */
const GLOSSARY_BY_WORD: ReadonlyMap<string, GlossaryEntry> = new Map(
  FIELD_GLOSSARY.flatMap((entry) => [entry.name, ...entry.words].map((word) => [fieldNameOfLabel(word) ?? word, entry] as const)),
);

/**
 * The glossary's entry for a field name as `fieldNameOfLabel` writes it (`farbe`, `原價`), if any.
 */
export function glossaryEntryOf(name: string): GlossaryEntry | undefined {
  return GLOSSARY_BY_WORD.get(name);
}

/**
 * The plain-English name for a field a label or class names, from the glossary (`Art.-Nr.` →
 * `sku`, `Manufacturer` → `brand`, a `.cost` price → `price`, `Farbe` → `color`, `原價` →
 * `regular_price`), when its values fit: an identifier only for codes (letters or digits with a
 * digit, no spaces), the right kind where the glossary names one. Otherwise `name` unchanged.
 *
 * @param name a snake_case name from `fieldNameOfLabel` or a class name
 * @param kind the kind the field's values were recognised as
 * @param values the field's values on sample pages
 */
export function canonicalFieldName(name: string, kind: ValueKind, values: readonly string[]): string {
  const entry = GLOSSARY_BY_WORD.get(name);
  if (entry === undefined || (entry.kinds !== undefined && !entry.kinds.includes(kind))) return name;
  if (entry.codes && !values.every((value) => /^[\p{L}\p{N}][\p{L}\p{N}._/-]{1,39}$/u.test(value) && /\d/.test(value))) return name;
  return entry.name;
}
