import { Module } from '@nestjs/common';
import { AdminAuthenticator } from '../auth/admin-authenticator';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { LimitsModule } from '../limits/limits.module';
import { UsageService } from '../usage/usage.service';
import { AdminAuditController } from './admin-audit.controller';
import { AdminAuditService } from './admin-audit.service';
import { TenantKeysController } from './tenant-keys.controller';
import { TenantKeysRepository } from './tenant-keys.repository';
import { TenantKeysService } from './tenant-keys.service';
import { TenantUsageService } from './tenant-usage.service';
import { TenantsController } from './tenants.controller';
import { TenantsModule } from './tenants.module';

/**
 * The admin API (`/admin/v1`, `ADMIN_TOKEN`): tenants, their keys, their usage, the audit. Its own
 * module because a tenant's usage needs the limits, which need the tenants' accounts.
 */
@Module({
  imports: [TenantsModule, LimitsModule],
  controllers: [TenantsController, TenantKeysController, AdminAuditController],
  // UsageService is the public usage endpoint's own computation, provided here too (it holds no state).
  providers: [
    AdminAuthenticator,
    AdminTokenGuard,
    TenantKeysService,
    TenantKeysRepository,
    TenantUsageService,
    AdminAuditService,
    UsageService,
  ],
  // The admin hook (configureGatewayApp) authenticates every /admin route with it, extract's too.
  exports: [AdminAuthenticator],
})
export class TenantAdminModule {}
