import { runService } from '@trawl/service-kit/run-service';
import { webhookDispatcherConfigSchema } from './config';

runService({
  name: 'webhook-dispatcher',
  configSchema: webhookDispatcherConfigSchema,
  // Required here, not imported above: the module loads Nest and pg, which must load after tracing starts.
  module: (config, logger) =>
    (require('./webhook-dispatcher.module') as typeof import('./webhook-dispatcher.module')).WebhookDispatcherModule.forRoot(
      config,
      logger,
    ),
});
