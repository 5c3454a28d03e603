/** What runs a statement: a `Database`, a transaction's `Sql`. */
interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

type BufferPlan = [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }];

/**
 * The table and index pages Postgres read to run `select` (`EXPLAIN (ANALYZE, BUFFERS)`): a
 * statement's cost as a count that does not depend on how busy the machine is.
 */
export async function pagesReadBy(db: Queryable, select: string): Promise<number> {
  const [{ 'QUERY PLAN': plan }] = await db.query<{ 'QUERY PLAN': BufferPlan }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${select}`);
  return plan[0].Plan['Shared Hit Blocks'] + plan[0].Plan['Shared Read Blocks'];
}
