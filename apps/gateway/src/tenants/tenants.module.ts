import { Module } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { CaptchaSolverController } from './captcha-solver.controller';
import { CaptchaSolverKeys } from './captcha-solver-keys';
import { TenantsController } from './tenants.controller';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

@Module({
  controllers: [TenantsController, CaptchaSolverController],
  providers: [TenantsService, TenantsRepository, AdminTokenGuard, AccountsRepository, AccountsService, CaptchaSolverKeys],
  exports: [AccountsRepository, AccountsService, CaptchaSolverKeys],
})
export class TenantsModule {}
