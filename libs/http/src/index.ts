export * from './problem';
export * from './bootstrap';
export * from './cursor-token';
export * from './drain-on-close';
export * from './internal-listener';
