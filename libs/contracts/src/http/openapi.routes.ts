import { z } from 'zod';
import type { ApiRoute } from './api-route';

/** Where the gateway serves the document, without an API key. */
export const OPENAPI_DOCUMENT_PATH = '/v1/openapi.json';

/** The document itself, loosely: its full shape is OpenAPI 3.1's. */
export const openApiDocumentSchema = z
  .looseObject({
    openapi: z.string(),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'OpenApiDocument', description: 'This document (OpenAPI 3.1).' });

export const openApiRoutes: ApiRoute[] = [
  {
    method: 'get',
    path: OPENAPI_DOCUMENT_PATH,
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    tag: 'Meta',
    authenticated: false,
    responses: { 200: openApiDocumentSchema },
  },
];
