import { runService } from '@trawl/service-kit/run-service';
import { schedulerConfigSchema } from './config';

runService({
  name: 'scheduler',
  configSchema: schedulerConfigSchema,
  // Required here, not imported above: the module loads Nest and pg, which must load after tracing starts.
  module: (config, logger) =>
    (require('./scheduler.module') as typeof import('./scheduler.module')).SchedulerModule.forRoot(config, logger),
});
