import { Module } from '@nestjs/common';
import { ActiveJobsRepository } from '@trawl/persistence';

/** The active-job limit that crawls and batch jobs share (architecture §3 "Quotas"). */
@Module({ providers: [{ provide: ActiveJobsRepository, useValue: new ActiveJobsRepository() }], exports: [ActiveJobsRepository] })
export class QuotaModule {}
