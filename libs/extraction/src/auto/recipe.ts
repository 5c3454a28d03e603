import { z } from 'zod';

/**
 * A recipe: what `extract=auto` knows about one prepared domain. Learned from sample pages by
 * `learnRecipe`, sent to fetch workers as JSON (NATS KV) and applied by `applyRecipe`. Everything
 * in it is plain data: selectors are CSS strings, URL templates are path patterns, so a worker on
 * another version can read it and the KV store can diff it.
 */

/** The wire format of this file's schema; a reader refuses a recipe of another format. */
export const RECIPE_FORMAT = 1;

/** Value kinds, as `auto/values` detects and normalises them (kept in step with its `ValueKind`). */
export const valueKindSchema = z.enum([
  'price',
  'currency',
  'date',
  'rating',
  'gtin',
  'email',
  'phone',
  'image_url',
  'url',
  'availability',
  'number',
  'text',
]);

/** A value in embedded data (JSON-LD, microdata, RDFa, OpenGraph), e.g. `Product` / `offers.price`. */
export const embeddedExtractorSchema = z.object({
  type: z.literal('embedded'),
  root_type: z.string().min(1),
  path: z.string().min(1),
});

/**
 * The value next to a label on the page (`th`→`td`, `dt`→`dd`, `label`, "Label: value"); `label`
 * is the label's text lower-cased, whitespace collapsed, without the trailing colon.
 */
export const labelExtractorSchema = z.object({
  type: z.literal('label'),
  label: z.string().min(1),
});

/**
 * The first element a CSS selector matches (relative to a list item inside a list): its text, or
 * `attribute`'s value. `anchored` is false for positional selectors (`:nth-child` chains), which
 * break first when the layout moves and so run after every anchored one.
 */
export const cssExtractorSchema = z.object({
  type: z.literal('css'),
  selector: z.string().min(1),
  attribute: z.string().min(1).optional(),
  anchored: z.boolean(),
  /**
   * Words the template writes before and after the value in the same element (`SKU `, `by `,
   * ` reviews)`), removed when present before the text is normalised.
   */
  prefix: z.string().min(1).optional(),
  suffix: z.string().min(1).optional(),
});

/** A part of the page URL's path and query: `pattern` is a regular expression with one group. */
export const urlExtractorSchema = z.object({
  type: z.literal('url'),
  pattern: z.string().min(1),
});

export const extractorSchema = z.discriminatedUnion('type', [
  embeddedExtractorSchema,
  labelExtractorSchema,
  cssExtractorSchema,
  urlExtractorSchema,
]);

/** One field of a list item: CSS extractors relative to the item element. */
export const itemFieldSchema = z.object({
  name: z.string().min(1),
  kind: valueKindSchema,
  extractors: z.array(cssExtractorSchema).min(1),
});

/**
 * Why a field has its name: keys such as `embedded:Product/offers.price`, `label:item code`,
 * `css:#price`. A re-preparation that finds a field with a shared key keeps the old name.
 */
const meaningSchema = z.array(z.string().min(1));

/**
 * `active` fields are extracted; `dormant` ones were learned by an earlier preparation and not
 * found by the latest: kept so that their names are never reused for something else, and revived
 * under the same name when they come back.
 */
export const fieldStatusSchema = z.enum(['active', 'dormant']);

/** A single value: extractors in order, the first yielding a valid normalised value wins. */
export const valueFieldSchema = z.object({
  type: z.literal('value'),
  name: z.string().min(1),
  kind: valueKindSchema,
  status: fieldStatusSchema,
  meaning: meaningSchema,
  extractors: z.array(extractorSchema).min(1),
  /**
   * Output names of the normaliser's extra parts, e.g. `{ currency: 'currency' }` for a price, so
   * that the names stay stable like the field's own.
   */
  extra_names: z.record(z.string(), z.string().min(1)).optional(),
});

/** A repeated region (search results, a list of records): an array of records. */
export const listFieldSchema = z.object({
  type: z.literal('list'),
  name: z.string().min(1),
  status: fieldStatusSchema,
  meaning: meaningSchema,
  /** Selectors of the item elements, tried in order; the first one matching anything wins. */
  items: z.array(cssExtractorSchema).min(1),
  fields: z.array(itemFieldSchema).min(1),
});

export const fieldSchema = z.discriminatedUnion('type', [valueFieldSchema, listFieldSchema]);

/** Pages of one template: one product page layout, one article layout, one listing layout. */
export const pageTypeSchema = z.object({
  /** `product`, `article`, `listing`, or a name taken from the URL. Unique within the recipe. */
  name: z.string().min(1),
  /**
   * URL path templates, `/` separated, each segment literal or `*` (any one segment), e.g.
   * `/p/*`. A page whose path matches one is of this type unless its structure says otherwise.
   */
  url_patterns: z.array(z.string().startsWith('/')),
  /**
   * Structure tokens (`div#main`, `span.price`) found on nearly every learned page of the type.
   * The share of them a page has says how well it fits the type.
   */
  signature: z.array(z.string().min(1)),
  fields: z.array(fieldSchema),
});

export const recipeSchema = z.object({
  format: z.literal(RECIPE_FORMAT),
  domain: z.string().min(1),
  /** Increases with each preparation of the domain; workers cache a recipe by domain and version. */
  version: z.number().int().nonnegative(),
  page_types: z.array(pageTypeSchema),
  /** Whether the domain's pages need JavaScript rendering to show their data. */
  render: z.boolean().optional(),
});

export type ValueKindName = z.infer<typeof valueKindSchema>;
export type EmbeddedExtractor = z.infer<typeof embeddedExtractorSchema>;
export type LabelExtractor = z.infer<typeof labelExtractorSchema>;
export type CssExtractorStep = z.infer<typeof cssExtractorSchema>;
export type UrlExtractor = z.infer<typeof urlExtractorSchema>;
export type Extractor = z.infer<typeof extractorSchema>;
export type ItemField = z.infer<typeof itemFieldSchema>;
export type ValueField = z.infer<typeof valueFieldSchema>;
export type ListField = z.infer<typeof listFieldSchema>;
export type RecipeField = z.infer<typeof fieldSchema>;
export type PageType = z.infer<typeof pageTypeSchema>;
export type Recipe = z.infer<typeof recipeSchema>;

/**
 * Reads a recipe from its JSON form (as stored in NATS KV).
 *
 * @throws ZodError when the value is not a recipe of `RECIPE_FORMAT`
 */
export function parseRecipe(json: unknown): Recipe {
  return recipeSchema.parse(json);
}
