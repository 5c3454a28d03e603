import { Module } from '@nestjs/common';
import { JobExportsController } from './job-exports.controller';
import { JobExportsRepository } from './job-exports.repository';
import { JobExportsService } from './job-exports.service';

/** Bulk exports of batch run results (spec-batch-api §8). */
@Module({
  controllers: [JobExportsController],
  providers: [JobExportsService, JobExportsRepository],
})
export class JobExportsModule {}
