import { FETCH_WORKER_ERROR_CODES, workerProblemKind } from '@trawl/contracts';
import { buildOpenApiDocument, type OpenApiDocument, PUBLIC_API_ROUTES } from '@trawl/contracts/http';
import type { ApiErrorCode } from '../problems/api-error';
import { API_ERROR_CODE_ENUMS, problemKind } from '../problems/problem-catalog';
import { buildVersion } from './build-version';

/** The gateway's OpenAPI document: every public route, with the problem codes of the catalog and of the workers. */
export function gatewayOpenApiDocument(): OpenApiDocument {
  const catalog = API_ERROR_CODE_ENUMS.flatMap((codes) => Object.values(codes) as ApiErrorCode[]).map((code) => problemKind(code));
  const worker = FETCH_WORKER_ERROR_CODES.map((code) => ({ code, ...workerProblemKind(code) }));
  return buildOpenApiDocument(PUBLIC_API_ROUTES, { version: buildVersion(), problemCodes: [...catalog, ...worker] });
}
