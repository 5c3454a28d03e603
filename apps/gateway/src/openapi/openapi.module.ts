import { Module } from '@nestjs/common';
import { OpenApiController } from './openapi.controller';
import { gatewayOpenApiDocument } from './openapi.document';
import { OPENAPI_DOCUMENT } from './openapi.tokens';

/** Serves the public API's OpenAPI document, built once at boot from the routes' zod schemas. */
@Module({
  controllers: [OpenApiController],
  providers: [{ provide: OPENAPI_DOCUMENT, useFactory: gatewayOpenApiDocument }],
})
export class OpenApiModule {}
