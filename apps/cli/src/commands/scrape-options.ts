import { type Command, Option } from 'commander';
import type { FetchOptions } from '@trawl/sdk';
import { collectParam, positiveInteger } from './option-values';

/** A `response_type`, as the SDK's types (generated from the API's document) give it. */
type ResponseType = NonNullable<FetchOptions['response_type']>;

/**
 * The help of each `response_type`'s flag, named as the type (`--markdown`). Typed by the SDK, not
 * by @trawl/contracts (the CLI uses nothing of the server): a new type does not compile here once
 * `npm run sdk:types` has put it in the SDK's types.
 */
const RESPONSE_TYPE_FLAGS: Readonly<Record<ResponseType, string>> = {
  markdown: 'answer the page as Markdown (response_type=markdown)',
  plaintext: 'answer the page as plain text (response_type=plaintext)',
  pdf: 'answer the page as a PDF printed by the browser (response_type=pdf; needs --js)',
};
const RESPONSE_TYPES = Object.keys(RESPONSE_TYPE_FLAGS) as ResponseType[];

/** The scrape options `fetch` and `batch submit` share, as parsed by commander. */
export interface ScrapeOptionValues extends Partial<Record<ResponseType, boolean>> {
  js?: boolean;
  premium?: boolean;
  country?: string;
  outputs?: string;
  maxAge?: number;
  changes?: boolean;
  param?: Record<string, unknown>;
}

/** Adds the shared scrape options: short names for the common Fetch parameters, `--param` for every other. */
export function addScrapeOptions(command: Command): Command {
  command
    .option('--js', 'render the page in a browser (js_render; 5 credits)')
    .option('--premium', 'go through a premium proxy (premium_proxy; 10 credits, 25 with --js)')
    .option('--country <code>', 'country of the premium proxy, ISO 3166-1 alpha-2 (proxy_country)');
  // One answer format per request: commander refuses two of these flags as a usage error.
  for (const type of RESPONSE_TYPES) {
    command.addOption(new Option(`--${type}`, RESPONSE_TYPE_FLAGS[type]).conflicts(RESPONSE_TYPES.filter((other) => other !== type)));
  }
  return command
    .option('--outputs <list>', 'data to extract, comma-separated, or * (outputs), e.g. emails,links')
    .option('--changes', 'compare with the last version of this URL you tracked (change_tracking)')
    .option('--max-age <seconds>', 'answer from a copy of the same request fetched within this time (max_age; 1 credit)', positiveInteger)
    .option('--param <name=value>', 'any other Fetch parameter; repeatable (e.g. --param wait_for=.price)', collectParam);
}

/** The Fetch parameters the options ask for; `--param` wins over the short names. */
export function scrapeParams(options: ScrapeOptionValues): Record<string, unknown> {
  const responseType = RESPONSE_TYPES.find((type) => options[type]);
  return {
    ...(options.js && { js_render: true }),
    ...(options.premium && { premium_proxy: true }),
    ...(options.country !== undefined && { proxy_country: options.country }),
    ...(responseType !== undefined && { response_type: responseType }),
    ...(options.outputs !== undefined && { outputs: options.outputs }),
    ...(options.maxAge !== undefined && { max_age: options.maxAge }),
    ...(options.changes && { change_tracking: true }),
    ...options.param,
  };
}
