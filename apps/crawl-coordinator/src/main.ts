import { runService } from '@trawl/service-kit/run-service';
import { crawlCoordinatorConfigSchema } from './config';

runService({
  name: 'crawl-coordinator',
  configSchema: crawlCoordinatorConfigSchema,
  // Required here, not imported above: the module loads Nest and pg, which must load after tracing starts.
  module: (config, logger) =>
    (require('./crawl-coordinator.module') as typeof import('./crawl-coordinator.module')).CrawlCoordinatorModule.forRoot(config, logger),
});
