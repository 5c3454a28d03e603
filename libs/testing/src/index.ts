export * from './postgres';
export * from './unique';
export * from './wait';
