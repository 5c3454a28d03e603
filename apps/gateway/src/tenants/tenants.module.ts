import { Module } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { TenantsController } from './tenants.controller';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

@Module({
  controllers: [TenantsController],
  providers: [TenantsService, TenantsRepository, AdminTokenGuard],
})
export class TenantsModule {}
