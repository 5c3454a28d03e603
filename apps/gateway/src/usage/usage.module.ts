import { Module } from '@nestjs/common';
import { LimitsModule } from '../limits/limits.module';
import { TenantsModule } from '../tenants/tenants.module';
import { UsageController } from './usage.controller';
import { UsageService } from './usage.service';

@Module({
  imports: [TenantsModule, LimitsModule],
  controllers: [UsageController],
  providers: [UsageService],
})
export class UsageModule {}
