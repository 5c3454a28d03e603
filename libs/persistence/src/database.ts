import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { isConnectionLoss } from './connection-loss';

/** What repositories run SQL on: the pool, or one transaction. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** As `query`, as a named prepared statement (see {@link Database.prepared}). */
  prepared<T = Record<string, unknown>>(name: string, text: string, params?: unknown[]): Promise<T[]>;
}

/**
 * Thin handle over the TypeORM DataSource that repositories take: hand-written SQL straight on its
 * `pg` pool (TypeORM's `query` answers `[rows, count]` for UPDATE/DELETE, and its query runners cost
 * a round of bookkeeping per call on hot paths), and transactions retried on serialization failures
 * and deadlocks, which are safe to retry by design.
 */
export class Database implements Sql {
  /**
   * The `pg` pool under TypeORM's driver (it has no public accessor): for what needs a client of
   * its own, such as the outbox relay's `LISTEN`. The only place that reaches into the driver.
   */
  readonly pool: Pool;
  private readonly lossListeners = new Set<(error: Error) => void>();

  constructor(
    readonly dataSource: DataSource,
    onIdleError: (error: Error) => void = () => undefined,
  ) {
    this.pool = (dataSource.driver as unknown as { master: Pool }).master;
    // An idle pooled connection that the server closes (restart, failover, an admin terminating
    // backends) is an 'error' event on the pool; unheard, it would crash the process. The pool
    // drops that connection and opens a new one on the next query.
    this.pool.on('error', (error: Error) => {
      onIdleError(error);
      if (isConnectionLoss(error)) for (const listener of this.lossListeners) listener(error);
    });
  }

  /**
   * Calls `listener` when an idle pooled connection is lost because the server went away (a
   * restart, a failover): the sign of an outage even when no query was running.
   */
  onConnectionLoss(listener: (error: Error) => void): void {
    this.lossListeners.add(listener);
  }

  async query<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(text, params)).rows as T[];
  }

  /**
   * Runs a statement of a hot path as a named prepared statement: each pooled connection parses and
   * plans it once, not on every call (planning alone measured ~0.8 ms for the Fetch slot claim).
   * `name` must be unique per statement text within the process.
   */
  async prepared<T = Record<string, unknown>>(name: string, text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query({ name, text, values: params })).rows as T[];
  }

  /**
   * Runs `work` in a transaction, retried (`retries` times) on serialization failures and deadlocks.
   *
   * `durable: false` commits without waiting for the WAL to reach disk (`synchronous_commit = off`
   * for this transaction only): the commit, and every lock the transaction holds until then, ends
   * without an fsync. Only for writes whose loss in a Postgres crash (the last ~0.2 s of them) the
   * system repairs by itself and that nothing outside Postgres has taken as final yet — batch
   * claims and results, which the reconciler dispatches again when their lease runs out. Default true.
   *
   * A connection lost while COMMIT was on its way rejects with `CommitOutcomeUnknownError`, which
   * carries what `work` returned: the server may have committed. Callers whose work left something
   * to do outside Postgres (publish what they claimed) do it then too, or it waits for a lease.
   */
  async transaction<T>(work: (sql: Sql) => Promise<T>, { retries = 3, durable = true } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client: PoolClient = await this.pool.connect();
      let broken = false;
      try {
        // One round trip: a simple query may hold several statements when it has no parameters.
        await client.query(durable ? 'BEGIN' : 'BEGIN; SET LOCAL synchronous_commit = off');
        const result = await work({
          query: async <R>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as R[],
          prepared: async <R>(name: string, text: string, params: unknown[] = []) =>
            (await client.query({ name, text, values: params })).rows as R[],
        });
        await client.query('COMMIT').catch((error: unknown) => {
          throw isConnectionLoss(error) ? new CommitOutcomeUnknownError(result, error) : error;
        });
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => (broken = true));
        if (attempt <= retries && isRetryable(error)) continue;
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  /**
   * True when a query goes through now (for `/readyz`); false when the database is down, restarting
   * or does not answer within `timeoutMs` (default 2 000).
   */
  async ping(timeoutMs = 2_000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.pool.query('SELECT 1').then(() => true), late]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === '40001' || code === '40P01';
}

/**
 * The connection died between COMMIT and its answer (a Postgres crash, a failover): the transaction
 * may have committed or not, and nobody can tell until the database is back. `result` is what the
 * transaction's work returned. Still a connection loss (`isConnectionLoss` follows `cause`).
 */
export class CommitOutcomeUnknownError<T = unknown> extends Error {
  constructor(
    readonly result: T,
    cause: unknown,
  ) {
    super(`the connection was lost at COMMIT; the transaction may have committed: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'CommitOutcomeUnknownError';
  }
}

/**
 * What the transaction returned, or, when its COMMIT lost its answer, what its work returned:
 * for callers that must act on a commit that may have happened (publish the tasks it claimed), and
 * can bear acting on one that did not (a task of a claim that never was is answered and ignored).
 * `onUnknown` hears of each such commit.
 */
export async function resultEvenIfCommitUnknown<T>(
  transaction: Promise<T>,
  onUnknown: (error: CommitOutcomeUnknownError<T>) => void,
): Promise<T> {
  try {
    return await transaction;
  } catch (error) {
    if (!(error instanceof CommitOutcomeUnknownError)) throw error;
    onUnknown(error as CommitOutcomeUnknownError<T>);
    return error.result as T;
  }
}
