export { detectKinds } from './detect-kinds';
export { normaliseValue, sameValue } from './normalise-value';
export type { NormalisedValue, ValueContext, ValueKind } from './value-kind';
export type { Availability } from './availability';
