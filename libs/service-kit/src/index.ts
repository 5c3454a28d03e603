// main.ts imports `runService` from '@trawl/service-kit/run-service' instead: this index loads pg and
// Nest, which must load after tracing starts.
export * from './connect';
export * from './outbox-relay-loop';
export * from './periodic-loop';
export * from './readiness';
export * from './runtime';
export * from './service-messaging';
export * from './stop-deadlines';
export * from './tokens';
