export * from './database';
export * from './data-source';
export * from './migrate';
