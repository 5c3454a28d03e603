import { Module } from '@nestjs/common';
import { RunsRepository } from '@trawl/persistence';
import { systemClock } from '@trawl/scheduling';
import { JobInputsModule } from '../job-inputs/job-inputs.module';
import { QuotaModule } from '../quota/quota.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { BATCH_CLOCK } from './batch.tokens';
import { JobCostsService } from './job-costs.service';
import { JobIngestsRepository } from './job-ingests.repository';
import { JobResultsRepository } from './job-results.repository';
import { JobResultsService } from './job-results.service';
import { JobRunsController } from './job-runs.controller';
import { JobRunsRepository } from './job-runs.repository';
import { JobRunsService } from './job-runs.service';
import { JobSchedulesRepository } from './job-schedules.repository';
import { JobSettingsController } from './job-settings.controller';
import { JobSettingsService } from './job-settings.service';
import { JobsController } from './jobs.controller';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { RunStopNotices } from './run-stop-notices';
import { ScheduleFiringsRepository } from './schedule-firings.repository';
import { TaskIngestService } from './task-ingest.service';
import { JobDeletionService } from './job-deletion.service';
import { SignedTaskContentController, TaskContentController } from './task-content.controller';
import { TaskContentService } from './task-content.service';
import { TaskHistoryService } from './task-history.service';

/** The Batch API's HTTP side (spec-batch-api, docs/design-batch.md); runs execute in the scheduler. */
@Module({
  imports: [QuotaModule, WebhooksModule, JobInputsModule],
  controllers: [JobsController, JobRunsController, JobSettingsController, TaskContentController, SignedTaskContentController],
  providers: [
    JobsService,
    JobRunsService,
    JobDeletionService,
    TaskContentService,
    TaskHistoryService,
    JobResultsService,
    JobSettingsService,
    JobCostsService,
    TaskIngestService,
    RunStopNotices,
    JobsRepository,
    JobRunsRepository,
    JobResultsRepository,
    JobSchedulesRepository,
    JobIngestsRepository,
    ScheduleFiringsRepository,
    { provide: RunsRepository, useValue: new RunsRepository() },
    { provide: BATCH_CLOCK, useValue: systemClock },
  ],
})
export class BatchModule {}
