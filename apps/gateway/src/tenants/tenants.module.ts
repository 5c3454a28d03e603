import { Module } from '@nestjs/common';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { AdminAuditRepository } from './admin-audit.repository';
import { CaptchaSolverController } from './captcha-solver.controller';
import { CaptchaSolverKeys } from './captcha-solver-keys';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

/** Tenants' accounts, and their own settings (the CAPTCHA solver). The admin API is `TenantAdminModule`. */
@Module({
  controllers: [CaptchaSolverController],
  providers: [TenantsService, TenantsRepository, AdminAuditRepository, AccountsRepository, AccountsService, CaptchaSolverKeys],
  exports: [TenantsService, TenantsRepository, AdminAuditRepository, AccountsRepository, AccountsService, CaptchaSolverKeys],
})
export class TenantsModule {}
