export * from './charge-buffer';
export * from './credit-ledger';
export * from './pricing';
export * from './usage-metrics';
export * from './ledger-products';
