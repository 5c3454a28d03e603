import { Body, Controller, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { prepareAgainBody, type PreparedDomainResource } from '@trawl/contracts/http';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { AdminFingerprint, AdminTokenGuard } from '../auth/admin-token.guard';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { presentPreparedDomain } from './prepared-domain.presenter';
import { PreparedDomainsService } from './prepared-domains.service';

/**
 * Admin API: an operator prepares a domain again (a site changed its pages, a preparation learned
 * too little). The domain stays served with its recipe until the new one is ready, and keeps its
 * field names (docs/decisions/extract.md, "Prepared again").
 */
@Controller('admin/v1/extract/domains')
@UseGuards(AdminTokenGuard)
export class ExtractAdminController {
  constructor(
    private readonly preparedDomains: PreparedDomainsService,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post(':domain/prepare')
  @HttpCode(202)
  async prepareAgain(
    @Param('domain') domain: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ): Promise<PreparedDomainResource> {
    assertKnownQueryParameters(query, [], { apiKeyParameter: false });
    const request = parseBody(prepareAgainBody, body ?? {});
    const { record, created } = await this.preparedDomains.prepareAgain(domain, request.example_urls);
    if (created)
      this.logger.info(
        { domain: record.domain, attempt: record.attempt, admin_fingerprint: admin },
        'extract domain prepared again by an operator',
      );
    return presentPreparedDomain(record);
  }
}
