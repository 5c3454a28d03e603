import { Module } from '@nestjs/common';
import { ActiveJobsRepository } from './active-jobs.repository';

/** The active-job limit that crawls and batch jobs share (architecture §3 "Quotas"). */
@Module({ providers: [ActiveJobsRepository], exports: [ActiveJobsRepository] })
export class QuotaModule {}
