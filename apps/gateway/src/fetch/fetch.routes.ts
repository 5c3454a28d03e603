import type { FastifyInstance } from 'fastify';

/** The Fetch endpoint's route patterns: `/v1/` as clients call it, and `/v1`. */
const FETCH_ROUTES: readonly string[] = ['/v1', '/v1/'];

export function isFetchRoute(route: string | undefined): boolean {
  return route !== undefined && FETCH_ROUTES.includes(route);
}

/** The verbs that fetch a page (spec §4); any other is `REQS005`. */
const FETCH_METHODS = ['GET', 'POST', 'PUT'] as const;
export type FetchMethod = (typeof FETCH_METHODS)[number];

export function isFetchMethod(method: string | undefined): method is FetchMethod {
  return method !== undefined && (FETCH_METHODS as readonly string[]).includes(method);
}

/**
 * Registers `/v1/` beside every `/v1` route as it is declared: clients call `/v1/`, and Nest
 * strips trailing slashes from its routes. Install before the app initialises its routes.
 */
export function mirrorFetchRoute(fastify: FastifyInstance): void {
  const mirrored = new WeakSet<object>();
  fastify.addHook('onRoute', (route) => {
    if (route.url !== '/v1' || mirrored.has(route)) return;
    const copy = { ...route, url: '/v1/', path: '/v1/' };
    mirrored.add(copy);
    fastify.route(copy);
  });
}
