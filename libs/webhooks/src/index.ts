export * from './secret-box';
export * from './signature';
export * from './retry-schedule';
export * from './webhook-body';
export * from './webhook-outbox';
export * from './delivery-client';
export * from './signing-keys.repository';
export * from './signing-key-context';
