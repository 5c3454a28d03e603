import { z } from 'zod';

// Field builders of JSON request bodies whose messages read well after the field name, as the
// gateway's `parseBody` words its problems: "`max_items` must be …". `null` or absent means "left
// out" in every optional field.

/** An integer from `min` to `max` inclusive; `null` or absent means left out. */
export function optionalBoundedInt(min: number, max: number) {
  const range = `must be an integer from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`;
  return z
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(min, { error: range })
    .max(max, { error: range })
    .nullish()
    .transform((value) => value ?? undefined);
}

/** A string of `min` to `max` characters; `null` or absent means left out. */
export function optionalBoundedString(min: number, max: number) {
  const length = `must be ${min} to ${max.toLocaleString('en')} characters long`;
  return z
    .string({ error: 'must be a string' })
    .min(min, { error: length })
    .max(max, { error: length })
    .nullish()
    .transform((value) => value ?? undefined);
}

/** Up to `maxItems` strings of 1 to `maxLength` characters; `null` or absent means left out. */
export function optionalStringList(maxItems: number, maxLength: number) {
  const length = `must be 1 to ${maxLength.toLocaleString('en')} characters long`;
  return z
    .array(z.string({ error: 'must be a string' }).min(1, { error: length }).max(maxLength, { error: length }), {
      error: 'must be an array of strings',
    })
    .max(maxItems, { error: `must hold at most ${maxItems} entries` })
    .nullish()
    .transform((value) => value ?? undefined);
}

/**
 * One of `values` (an enum sent as a string): another type is a 400 (`must be a string`), another
 * string a 422 range error naming the values; `null` or absent means left out. The document lists
 * the values as the field's `enum`.
 */
export function optionalChoice<T extends string>(values: readonly T[]) {
  return z
    .string({ error: 'must be a string' })
    .refine((value): value is T => (values as readonly string[]).includes(value), { error: `must be one of: ${values.join(', ')}` })
    .meta({ enum: [...values] })
    .nullish()
    .transform((value) => (value ?? undefined) as T | undefined);
}
