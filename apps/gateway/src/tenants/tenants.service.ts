import { Injectable } from '@nestjs/common';
import { apiKeyHint, generateApiKey, hashApiKey } from '../auth/api-key';
import { CreateTenantBody, TENANT_DEFAULTS } from './tenants.schemas';
import { TenantRecord, TenantsRepository } from './tenants.repository';

/** A new tenant with its API key: the only time the key is ever shown. */
export interface CreatedTenant {
  tenant: TenantRecord;
  apiKey: string;
}

@Injectable()
export class TenantsService {
  constructor(private readonly tenants: TenantsRepository) {}

  async create(request: CreateTenantBody): Promise<CreatedTenant> {
    const apiKey = generateApiKey();
    const tenant = await this.tenants.createWithKey({
      name: request.name ?? TENANT_DEFAULTS.name,
      creditsLimit: request.credits ?? TENANT_DEFAULTS.credits,
      concurrency: request.concurrency ?? TENANT_DEFAULTS.concurrency,
      maxActiveJobs: request.max_active_jobs ?? TENANT_DEFAULTS.maxActiveJobs,
      periodDays: TENANT_DEFAULTS.periodDays,
      key: { hash: hashApiKey(apiKey), hint: apiKeyHint(apiKey) },
    });
    return { tenant, apiKey };
  }
}
