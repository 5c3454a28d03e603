import { Controller, Get, Inject, Query } from '@nestjs/common';
import type { OpenApiDocument } from '@trawl/contracts/http';
import { assertKnownQueryParameters, type QueryParameters } from '../problems/query-parameters';
import { OPENAPI_DOCUMENT } from './openapi.tokens';

/** `GET /v1/openapi.json`: the public API's OpenAPI 3.1 document, without an API key (api-key.hook.ts). */
@Controller('v1')
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: OpenApiDocument) {}

  @Get('openapi.json')
  read(@Query() query: QueryParameters): OpenApiDocument {
    assertKnownQueryParameters(query, []);
    return this.document;
  }
}
