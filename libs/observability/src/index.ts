export * from './logger';
export * from './tracing';
export * from './metrics';
export * from './health.module';
