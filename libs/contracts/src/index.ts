export * from './messaging-topology';
export * from './crawl-page.messages';
export * from './provisioning';
export * from './fetch.messages';
export * from './webhook.messages';
export * from './schedule.schema';
export * from './batch-task.messages';
