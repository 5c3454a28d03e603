import { Module } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { TenantsController } from './tenants.controller';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

@Module({
  controllers: [TenantsController],
  providers: [TenantsService, TenantsRepository, AdminTokenGuard, AccountsRepository, AccountsService],
  exports: [AccountsRepository, AccountsService],
})
export class TenantsModule {}
