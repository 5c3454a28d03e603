export * from './fetch-params';
export * from './fetch-params.errors';
export * from './forwarded-headers';
export * from './service-params';
export * from './output-format';
export * from './forbidden-domains';
export * from './extract-options';
