export * from './problem';
export * from './bootstrap';
