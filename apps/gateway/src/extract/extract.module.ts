import { Module } from '@nestjs/common';
import { ExtractAdminController } from './extract-admin.controller';
import { PreparedDomainsController } from './prepared-domains.controller';
import { PreparedDomainsRepository } from './prepared-domains.repository';
import { PreparedDomainsService } from './prepared-domains.service';

/** Extract's prepared domains; the Fetch module uses `PreparedDomainsService` to serve `extract=auto`. */
@Module({
  controllers: [PreparedDomainsController, ExtractAdminController],
  providers: [PreparedDomainsService, PreparedDomainsRepository],
  exports: [PreparedDomainsService],
})
export class ExtractModule {}
