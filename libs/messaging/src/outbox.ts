import type { z } from 'zod';

/** What writing to the outbox needs of a database handle: the caller's transaction, usually. */
export interface OutboxSql {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** A message contract: an object schema whose `v` is its version, a literal. */
type VersionedSchema = z.ZodObject<{ v: z.ZodLiteral<number> } & z.ZodRawShape>;

/**
 * Writes a message to the outbox (published by the outbox relay once the caller's transaction
 * commits), held to its contract first with its version stamped: the relay then only ever publishes
 * what the consumers of the subject read. Every outbox write goes through here.
 *
 * @throws ZodError when the message does not match its schema (a programming error).
 */
export async function writeToOutbox<S extends VersionedSchema>(
  sql: OutboxSql,
  subject: string,
  schema: S,
  message: Omit<z.input<S>, 'v'>,
): Promise<z.output<S>> {
  const checked = schema.parse({ ...message, v: schema.shape.v.value });
  await sql.query(`INSERT INTO outbox (subject, payload) VALUES ($1, $2)`, [subject, JSON.stringify(checked)]);
  return checked;
}
