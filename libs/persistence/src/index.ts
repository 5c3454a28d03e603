export * from './connection-loss';
export * from './database';
export * from './data-source';
export * from './migrate';
export * from './jobs/active-jobs.repository';
export * from './jobs/runs.repository';
export * from './schema-readiness';
export * from './tables';
