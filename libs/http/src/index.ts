export * from './problem';
export * from './bootstrap';
export * from './cursor-token';
