export * from './clock';
export * from './wall-clock';
export * from './next-firing';
export * from './schedule-changes';
export * from './schedule-validation';
export * from './firing-outcomes';
