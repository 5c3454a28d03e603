export * from './logger';
export * from './tracing';
export * from './with-span';
export * from './metrics';
export * from './health.module';
