export * from './postgres';
export * from './unique';
export * from './wait';
export * from './commit-reply-cutter';
export * from './test-context-manager';
export * from './pages-read';
