import { EXTRACT_RENDER_WAIT_MS, type FetchOptionsV1 } from '@trawl/contracts';

/** What Postgres says serves a domain for `extract=auto`. */
export interface ServedExtractRecipe {
  /** Registrable domain. */
  domain: string;
  version: number;
  /** Its pages show their data only once rendered. */
  needsRender: boolean;
}

/** Why an `extract=auto` request (or batch task) cannot be served, with the code the Fetch API answers. */
export interface ExtractRefusal {
  code: 'REQS007' | 'REQS002';
  status: 403 | 400;
  detail: string;
  domain: string;
}

/**
 * The options an `extract=auto` request is served with, or why it cannot be, the same for a Fetch
 * request and a batch task: `REQS007` naming the domain when Extract does not serve it (spec §4
 * rule 3), `REQS002` when its pages need rendering and the request has none. A rendered request
 * without a wait of its own gets the short wait the preparation learned the recipe with (rule 2).
 *
 * @param domain the registrable domain of the target
 * @param served the domain's recipe, undefined when the domain is not served
 */
export function extractServing(
  options: FetchOptionsV1,
  domain: string,
  served: ServedExtractRecipe | undefined,
): { options: FetchOptionsV1 } | { refusal: ExtractRefusal } {
  if (!served) {
    return {
      refusal: {
        code: 'REQS007',
        status: 403,
        domain,
        detail:
          `Extract is not prepared for ${domain}. Ask for it with POST /v1/extract/prepared-domains, ` +
          'check GET /v1/extract/domains, or use css_extractor meanwhile.',
      },
    };
  }
  if (served.needsRender && !options.js_render && options.mode !== 'auto') {
    return {
      refusal: {
        code: 'REQS002',
        status: 400,
        domain,
        detail: `The pages of ${domain} show their data only once rendered: add js_render=true to extract from them.`,
      },
    };
  }
  const settles =
    options.js_render && options.wait === undefined && options.wait_for === undefined && options.js_instructions === undefined;
  return {
    options: { ...options, extract: { domain: served.domain, version: served.version }, ...(settles && { wait: EXTRACT_RENDER_WAIT_MS }) },
  };
}

/** Whether job or task parameters ask for `extract` (or `autoparse`), before they are parsed. */
export function mentionsExtract(params: Record<string, unknown> | null | undefined): boolean {
  return params !== null && params !== undefined && (params.extract !== undefined || params.autoparse !== undefined);
}
