import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OPENAPI_DOCUMENT_PATH } from '@trawl/contracts/http';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { AuthError, AuthErrorCode } from './auth.errors';

/** Every route under this prefix needs an API key, and the Fetch endpoint's `/v1` as well. */
const AUTHENTICATED_PREFIX = '/v1/';
const AUTHENTICATED_ROOT = '/v1';
/** `/v1` routes anyone may read: the API's own description. */
const OPEN_ROUTES: readonly string[] = [OPENAPI_DOCUMENT_PATH];
/** The MCP endpoint: authenticated too, and by `Authorization: Bearer <key>` as MCP clients send it. */
export const MCP_PATH = '/mcp';

/**
 * Authenticates every `/v1` route in Fastify's `onRequest` phase: before the body is read, so a
 * caller without a valid key gets its 401 whatever it sent, and no route can forget the check.
 */
export function installApiKeyAuthentication(fastify: FastifyInstance, authenticator: ApiKeyAuthenticator): void {
  fastify.decorateRequest('tenant', null);
  fastify.addHook('onRequest', async (request) => {
    const route = request.routeOptions.url;
    if (route === MCP_PATH) {
      request.tenant = await authenticator.authenticate(presentedApiKey(request) ?? bearerKey(request));
      return;
    }
    if (route === undefined || !(route === AUTHENTICATED_ROOT || route.startsWith(AUTHENTICATED_PREFIX))) return;
    if (OPEN_ROUTES.includes(route)) return;
    request.tenant = await authenticator.authenticate(presentedApiKey(request));
  });
}

/** The key from `X-API-Key`, else from `apikey`; the header wins when both are sent. */
function presentedApiKey(request: Pick<FastifyRequest, 'headers' | 'query'>): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const parameter = (request.query as Record<string, unknown> | undefined)?.apikey;
  if (parameter === undefined || typeof parameter === 'string') return parameter;
  throw new AuthError(AuthErrorCode.KeyMalformed, 'Send one API key, once.');
}

/**
 * The key of `Authorization: Bearer <key>`. Only the MCP endpoint reads it: on the Fetch endpoint an
 * `Authorization` header may be the caller's for the target site.
 */
export function bearerKey(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1];
}

/** The API key a request presented, as the authentication read it (for calls made on the caller's behalf). */
export function presentedKeyOf(request: Pick<FastifyRequest, 'headers' | 'query'>): string | undefined {
  return presentedApiKey(request) ?? bearerKey(request);
}
