import { DataSource, QueryRunner } from 'typeorm';

/** What repositories run SQL on: the pool, or one transaction. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
}

/**
 * Thin handle over the TypeORM DataSource that repositories take: hand-written SQL on the pool, and
 * transactions with a retry on serialization failures and deadlocks (both safe to retry by design).
 */
export class Database implements Sql {
  constructor(readonly dataSource: DataSource) {}

  async query<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    return (await this.dataSource.query(text, params)) as T[];
  }

  async transaction<T>(work: (sql: Sql) => Promise<T>, { retries = 3 } = {}): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const runner: QueryRunner = this.dataSource.createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        const result = await work({
          query: async <R>(text: string, params: unknown[] = []) => (await runner.query(text, params)) as R[],
        });
        await runner.commitTransaction();
        return result;
      } catch (error) {
        if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
        if (attempt <= retries && isRetryable(error)) continue;
        throw error;
      } finally {
        await runner.release();
      }
    }
  }

  async ping(): Promise<boolean> {
    try {
      await this.dataSource.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string; driverError?: { code?: string } })?.driverError?.code ??
    (error as { code?: string })?.code;
  return code === '40001' || code === '40P01';
}
