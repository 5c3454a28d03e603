export { detectKinds } from './detect-kinds';
export { normaliseValue, sameValue } from './normalise-value';
export { pageDecimalMark } from './decimal-mark';
export { LazyValueContext } from './lazy-value-context';
export type { DecimalMark, NormalisedValue, ValueContext, ValueKind } from './value-kind';
export type { Availability } from './availability';
