export * from './connection';
export * from './provisioning';
export * from './publish';
export * from './inbound-message';
export * from './message-consumer';
export * from './batch-consumer';
export * from './outbox-relay';
