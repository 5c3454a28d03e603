import type { MessagingTopology } from '@trawl/contracts';
import type { StopDeadlines } from '@trawl/service-kit';
import type { SecretBox } from '@trawl/webhooks';

export const RUNS_SETTINGS = Symbol('RUNS_SETTINGS');

/** Tunables of batch run execution (from config), with units. */
export interface RunsSettings {
  topology: MessagingTopology;
  /** How often the dispatcher looks for queued tasks when the last round found none, ms. */
  dispatchPollMs: number;
  /** Most tasks one dispatch round claims, across tenants. */
  dispatchBatch: number;
  /** Most batch tasks dispatched and unanswered at once across every tenant (JetStream back-pressure). */
  dispatchWindow: number;
  /** How long a claim lasts before the reconciler dispatches the task again, ms (queue wait + fetch). */
  leaseMs: number;
  /** Time a worker may spend on one task, ms (the Fetch API's deadline). */
  taskTimeoutMs: number;
  /** Largest answer body of a task, bytes (`RESP005` beyond it). */
  maxBodyBytes: number;
  /** Attempts of a task before it fails with `ERR0001`. */
  maxAttempts: number;
  /** How often the reconciler looks for expired leases and finishable runs, ms. */
  reconcileIntervalMs: number;
  /** Most result messages applied in one transaction. */
  resultBatch: number;
  /** How long the first result of a batch waits for more before the batch is applied, ms. */
  resultWaitMs: number;
  /** How long a dispatch round waits for more freed slots after results came in, ms. */
  dispatchLingerMs: number;
  /** Whether an intake claims the next tasks for the slots it freed (`RunDispatcherService.refillIn`). */
  refillOnIntake: boolean;
  /** Most of a run's claimed tasks in one NATS message (`BATCH_TASK_GROUP_SIZE`). */
  tasksPerMessage: number;
  /** US dollars per credit: `stats.spend.cost` = credits × this. */
  creditPriceUsd: number;
  /** Operator's forbidden domains (`FETCH_FORBIDDEN_DOMAINS`): tasks there fail with `REQS001`. */
  forbiddenDomains: readonly string[];
  /** Opens tenants' sealed CAPTCHA solver keys (`SECRETS_KEY`); without it, sealed keys are not sent. */
  secrets?: SecretBox;
  /** Shares of `SHUTDOWN_TIMEOUT_MS` the loops and the result intake stop within. */
  stopDeadlines: StopDeadlines;
}
