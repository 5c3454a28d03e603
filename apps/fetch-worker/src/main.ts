import { runService } from '@trawl/service-kit/run-service';
import { fetchWorkerConfigSchema } from './config';

runService({
  name: 'fetch-worker',
  configSchema: fetchWorkerConfigSchema,
  // Required here, not imported above: the module loads Nest and undici, which must load after tracing starts.
  module: (config, logger) =>
    (require('./fetch-worker.module') as typeof import('./fetch-worker.module')).FetchWorkerModule.forRoot(config, logger),
});
