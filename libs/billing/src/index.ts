export * from './credit-ledger';
export * from './pricing';
