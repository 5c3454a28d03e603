import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module';
import { AdmissionRepository } from './admission.repository';
import { ClientAddressHealth } from './client-address-health';
import { ClientAddressesRepository } from './client-addresses.repository';
import { ConcurrencySlotsRepository } from './concurrency-slots.repository';
import { LimitPeers } from './limit-peers';
import { LimitsService } from './limits.service';

/** Limits shared by every replica through Postgres: rate, concurrency, client addresses. */
@Module({
  imports: [TenantsModule],
  providers: [LimitsService, LimitPeers, AdmissionRepository, ConcurrencySlotsRepository, ClientAddressesRepository, ClientAddressHealth],
  exports: [LimitsService, ClientAddressHealth],
})
export class LimitsModule {}
