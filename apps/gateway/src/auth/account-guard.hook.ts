import type { FastifyInstance } from 'fastify';
import type { AccountNeeds } from '../tenants/account-standing';
import { AccountsService } from '../tenants/accounts.service';

/**
 * What the account must allow for routes that start paid work, besides Fetch (which checks its
 * own, with the tier it asks for). Reads, stops and downloads stay open whatever the account's
 * state: a tenant can always get at what it already paid for.
 */
const GUARDED_ROUTES: Readonly<Record<string, AccountNeeds>> = {
  // A crawl opens pages billed from 1 credit each: it needs the crawl product and a credit left.
  'POST /v1/crawls': { product: 'crawl', credits: 1 },
  // A map is the crawl product's discovery, billed from 1 credit.
  'POST /v1/map': { product: 'crawl', credits: 1 },
  // A batch run bills each successful task from 1 credit.
  'POST /v1/jobs': { product: 'batch', credits: 1 },
  'POST /v1/jobs/:jobId/rerun': { product: 'batch', credits: 1 },
  'POST /v1/jobs/:jobId/retry-failed': { product: 'batch', credits: 1 },
};

/**
 * Refuses, after authentication and before the body is read, a request to start work the
 * account may not start (`AUTH004`, `AUTH009`, `AUTH011`, `AUTH012`). Install after the API key hook.
 */
export function installAccountGuard(fastify: FastifyInstance, accounts: AccountsService): void {
  fastify.addHook('onRequest', async (request) => {
    const needs = GUARDED_ROUTES[`${request.method} ${request.routeOptions.url}`];
    if (!needs || !request.tenant) return;
    await accounts.assertMay(request.tenant.tenantId, needs);
  });
}
