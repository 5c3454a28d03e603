export * from './load-config';
export * from './common-schemas';
