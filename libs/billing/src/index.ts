export * from './charge-buffer';
export * from './credit-ledger';
export * from './pricing';
