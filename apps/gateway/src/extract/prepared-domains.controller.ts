import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  EXTRACT_DOMAIN_PAGE_SIZE,
  listExtractDomainsQuery,
  prepareDomainBody,
  type ExtractDomainListResource,
  type PreparedDomainResource,
} from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { presentPreparedDomain, presentServedDomain } from './prepared-domain.presenter';
import { PreparedDomainsService } from './prepared-domains.service';

/** Extract's prepared domains (spec-extract-fetch §4). Every route is authenticated by the API key hook. */
@Controller('v1/extract')
export class PreparedDomainsController {
  constructor(private readonly preparedDomains: PreparedDomainsService) {}

  @Post('prepared-domains')
  @HttpCode(202)
  async prepare(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<PreparedDomainResource> {
    assertKnownQueryParameters(query, []);
    const request = parseBody(prepareDomainBody, body);
    const { record } = await this.preparedDomains.ask(tenant.tenantId, request);
    return presentPreparedDomain(record);
  }

  @Get('prepared-domains/:domain')
  async read(@Param('domain') domain: string, @Query() query: QueryParameters): Promise<PreparedDomainResource> {
    assertKnownQueryParameters(query, []);
    return presentPreparedDomain(await this.preparedDomains.read(domain));
  }

  @Get('domains')
  async list(@Query() query: QueryParameters): Promise<ExtractDomainListResource> {
    assertKnownQueryParameters(query, Object.keys(listExtractDomainsQuery.shape));
    const limit = intQueryParameter(query, 'limit', EXTRACT_DOMAIN_PAGE_SIZE);
    const page = await this.preparedDomains.list(singleQueryValue(query, 'cursor') || undefined, limit);
    return { domains: page.domains.map(presentServedDomain), ...(page.nextCursor !== undefined && { next_cursor: page.nextCursor }) };
  }
}
