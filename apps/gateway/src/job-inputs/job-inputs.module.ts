import { Module } from '@nestjs/common';
import { JobInputUploadsController } from './job-input-uploads.controller';
import { JobInputsController } from './job-inputs.controller';
import { JobInputsRepository } from './job-inputs.repository';
import { JobInputsService } from './job-inputs.service';

/** CSV inputs of the Batch API: slots, signed uploads, and handing rows to a job (`JobInputsService`). */
@Module({
  controllers: [JobInputsController, JobInputUploadsController],
  providers: [JobInputsService, JobInputsRepository],
  // Job creation takes a CSV input's rows through the service.
  exports: [JobInputsService],
})
export class JobInputsModule {}
