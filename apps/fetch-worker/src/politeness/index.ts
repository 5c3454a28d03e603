export { SharedHostGate, type HostGate, type HostPermit } from './host-gate';
export { NatsHostRecords, type HostRecords } from './host-records';
export { isLimited, type BackoffRules, type HostLimits } from './host-state';
export { PoliteFetchEngine } from './polite-fetch-engine';
export { PolitenessError, PolitenessErrorCode } from './politeness.errors';
export { PolitenessMetrics } from './politeness.metrics';
