import { Module } from '@nestjs/common';
import { ExportDownload } from './export-download';
import { JobExportDownloadsController } from './job-export-downloads.controller';
import { JobExportsController } from './job-exports.controller';
import { JobExportsRepository } from './job-exports.repository';
import { JobExportsService } from './job-exports.service';

/** Bulk exports of batch run results (spec-batch-api §8): made with the API key, downloaded with it or by a signed URL. */
@Module({
  controllers: [JobExportsController, JobExportDownloadsController],
  providers: [JobExportsService, JobExportsRepository, ExportDownload],
})
export class JobExportsModule {}
