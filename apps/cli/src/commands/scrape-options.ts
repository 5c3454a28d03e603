import type { Command } from 'commander';
import { collectParam } from './option-values';

/** The scrape options `fetch` and `batch submit` share, as parsed by commander. */
export interface ScrapeOptionValues {
  js?: boolean;
  premium?: boolean;
  country?: string;
  markdown?: boolean;
  outputs?: string;
  param?: Record<string, unknown>;
}

/** Adds the shared scrape options: short names for the common Fetch parameters, `--param` for every other. */
export function addScrapeOptions(command: Command): Command {
  return command
    .option('--js', 'render the page in a browser (js_render; 5 credits)')
    .option('--premium', 'go through a premium proxy (premium_proxy; 10 credits, 25 with --js)')
    .option('--country <code>', 'country of the premium proxy, ISO 3166-1 alpha-2 (proxy_country)')
    .option('--markdown', 'answer the page as Markdown (response_type=markdown)')
    .option('--outputs <list>', 'data to extract, comma-separated, or * (outputs), e.g. emails,links')
    .option('--param <name=value>', 'any other Fetch parameter; repeatable (e.g. --param wait_for=.price)', collectParam);
}

/** The Fetch parameters the options ask for; `--param` wins over the short names. */
export function scrapeParams(options: ScrapeOptionValues): Record<string, unknown> {
  return {
    ...(options.js && { js_render: true }),
    ...(options.premium && { premium_proxy: true }),
    ...(options.country !== undefined && { proxy_country: options.country }),
    ...(options.markdown && { response_type: 'markdown' }),
    ...(options.outputs !== undefined && { outputs: options.outputs }),
    ...options.param,
  };
}
