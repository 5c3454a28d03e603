export * from './columns';
export * from './crawls';
export * from './crawl-frontier';
export * from './jobs';
export * from './job-tasks';
export * from './job-runs';
export * from './run-tasks';
export * from './webhook-deliveries';
