import { Pool, type ClientBase, type PoolConfig } from 'pg';

/**
 * SQLSTATE classes and codes that mean "the server went away", not "this statement is wrong":
 * 08 connection exception, 57P01–57P03 (admin shutdown, crash shutdown, cannot connect now: a
 * restart, a failover), 53300 too many connections.
 */
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)/i;

/**
 * True when `error` says Postgres is unreachable or restarting (a kill, a switchover), rather than
 * that the work itself is wrong. Work that failed this way is retried once the database is back;
 * it must never count against the work (a crawl failed as `internal_error`, a result given up).
 */
export function isConnectionLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (code.startsWith('08') || CONNECTION_SQLSTATES.has(code) || CONNECTION_ERRNOS.has(code))) return true;
    if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
  }
  return false;
}

/** Default time a pool waits for a new connection before the query fails, in ms. */
export const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Options every `pg` pool of Trawl's gets (TypeORM's through `extra`, and `createPool`'s):
 * - each client gets an `error` listener for its whole life. A pool listens to its idle clients
 *   only; a client checked out (a transaction, the outbox relay's pass) whose server dies emits
 *   `error` with nobody listening, and Node ends the process ("Connection terminated
 *   unexpectedly", "terminating connection due to administrator command"). The query in flight
 *   still fails, and the pool throws the client away on release.
 * - a connect timeout, so a database that does not answer (a failover in progress, a dropped
 *   route) fails the query instead of hanging it; TCP keep-alive finds dead peers.
 */
export function resilientPoolOptions(onClientError: (error: Error) => void = () => undefined): PoolConfig {
  return {
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    onConnect: (client: ClientBase) => {
      client.on('error', onClientError);
    },
  };
}

/**
 * A `pg` pool beside TypeORM's (a relay's, a listener's): the options of `resilientPoolOptions`,
 * and its idle-client errors logged through `onError` instead of ending the process.
 */
export function createPool(options: { url: string; max?: number; applicationName?: string; onError?: (error: Error) => void }): Pool {
  const onError = options.onError ?? (() => undefined);
  const pool = new Pool({
    connectionString: options.url,
    max: options.max ?? 2,
    application_name: options.applicationName,
    ...resilientPoolOptions(),
  });
  pool.on('error', onError);
  return pool;
}

export interface DatabaseOutageOptions {
  /** Longest the work is retried while the database is unreachable, in ms. */
  holdMs: number;
  /** Pause between tries, in ms (default 500). */
  retryMs?: number;
  /** Called before each retry (keep a message's ack wait alive, log once). */
  onRetry?: (error: unknown, attempt: number) => void;
  /** Gives up early (shutdown). */
  signal?: AbortSignal;
}

/**
 * Runs `work`, and runs it again while it fails because the database is unreachable
 * (`isConnectionLoss`), for up to `holdMs`: work held in memory through a Postgres restart is done
 * once it is back, instead of being handed back and counted as a failure. Any other error, or the
 * outage outlasting `holdMs`, rejects with the last error.
 */
export async function retryWhileDatabaseDown<T>(work: () => Promise<T>, options: DatabaseOutageOptions): Promise<T> {
  const deadline = Date.now() + options.holdMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isConnectionLoss(error) || options.signal?.aborted || Date.now() + (options.retryMs ?? 500) > deadline) throw error;
      options.onRetry?.(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 500));
    }
  }
}
