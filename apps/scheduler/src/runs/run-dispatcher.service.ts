import { Inject, Injectable } from '@nestjs/common';
import { BatchTaskV1, batchTaskMsgId, taskMessages } from '@trawl/contracts';
import { registrableDomain } from '@trawl/egress';
import { ForbiddenDomains, mentionsExtract, type ServedExtractRecipe } from '@trawl/fetch-params';
import { MessagingConnection, publishManyHeld } from '@trawl/messaging';
import { contextFromTraceParent, Logger, withSpan } from '@trawl/observability';
import { Database, resultEvenIfCommitUnknown, type Sql } from '@trawl/persistence';
import { openCaptchaSolverKey } from '@trawl/webhooks';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { batchTaskOf, type ClaimedTask } from './batch-task-of';
import { planDispatch, planRefill } from './dispatch-plan';
import { CandidateRun, LockedRun, RunDispatchRepository, TenantDispatchInputs } from './run-dispatch.repository';
import { RunResultsService } from './run-results.service';
import { RunsMetrics } from './runs.metrics';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';
import type { TaskResult } from './task-result';

/** A run whose tasks ask for no `extract` needs no recipe. */
const NO_RECIPES: ReadonlyMap<string, ServedExtractRecipe> = new Map();

/** Tasks claimed for one tenant in one transaction, to publish once it commits. */
export interface DispatchClaims {
  tenantId: string;
  tasks: BatchTaskV1[];
  /** Tasks failed at the claim (never published). */
  refused: number;
  /** Runs the claim moved from queued to running. */
  running: string[];
}

/** What an intake claimed for the slots it freed (`RunDispatcherService.refillIn`). */
export interface Refill {
  claims: DispatchClaims[];
  /** Some tenant of the intake has queued tasks and room the refill did not fill. */
  roomLeft: boolean;
}

/** Runs looked at per round (oldest first). */
const CANDIDATE_RUNS = 500;

/**
 * Moves queued run tasks to fetch workers, fairly: round-robin over tenants, then over a tenant's
 * runs, never more tasks in flight for a tenant than its `concurrency` (batch tasks have that budget
 * of their own: they never take the slots of the tenant's live Fetch requests). Per tenant, one
 * transaction under the tenant's dispatch lock (so replicas never overfill a tenant) claims tasks
 * (new attempt, lease) of runs still queued or running, moves a queued run to running, and commits;
 * then the tasks are published, several of a run to a message (`taskMessages`), named by their claims. A crash between commit and publish
 * loses nothing: the lease runs out and the reconciler queues the task again.
 */
@Injectable()
export class RunDispatcherService {
  private readonly forbidden: ForbiddenDomains;
  private rotation = 0;
  /** Ends a publish held through a NATS outage when the scheduler stops (`stop()`). */
  private readonly stopping = new AbortController();

  constructor(
    private readonly db: Database,
    private readonly dispatch: RunDispatchRepository,
    private readonly results: RunResultsService,
    private readonly metrics: RunsMetrics,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.forbidden = new ForbiddenDomains(settings.forbiddenDomains);
    metrics.countActiveWith(() => dispatch.countInFlight(db));
  }

  /** Stops holding tasks NATS refused; their leases bring them back. */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * One dispatch round; answers the number of tasks claimed (published or failed at once), and
   * whether another round may claim more at once: this one used its whole budget, or saw as many
   * runs as it looks at. Otherwise what held it back (tenants' concurrency, nothing queued) changes
   * only with results, new runs or time, which wake the loop themselves.
   */
  async dispatchRound(): Promise<{ claimed: number; more: boolean }> {
    const inFlight = await this.dispatch.inFlight(this.db, this.settings.dispatchWindow);
    const budget = Math.min(this.settings.dispatchBatch, this.settings.dispatchWindow - inFlight);
    if (budget <= 0) return { claimed: 0, more: false };
    const candidates = await this.dispatch.candidates(this.db, CANDIDATE_RUNS, budget);
    const runnable = await this.failRunsThatCannotGoOn(candidates);
    if (runnable.length === 0) return { claimed: 0, more: false };
    const tenantIds = [...new Set(runnable.map((c) => c.tenantId))];
    const busy = await this.dispatch.inFlightByTenant(this.db, tenantIds);
    const room = new Map(runnable.map((c) => [c.tenantId, c.concurrency - (busy.get(c.tenantId) ?? 0)]));
    const plan = planDispatch(runnable, room, budget, this.rotation++);
    let claimed = 0;
    for (const tenant of plan.tenants) claimed += await this.dispatchTenant(tenant.tenantId, tenant.runs);
    return { claimed, more: claimed > 0 && (claimed >= budget || candidates.length >= CANDIDATE_RUNS) };
  }

  /** Runs of tenants whose account cannot pay for them fail (spec §3 "failure of the run"); the others go on. */
  private async failRunsThatCannotGoOn(candidates: CandidateRun[]): Promise<CandidateRun[]> {
    const runnable: CandidateRun[] = [];
    for (const run of candidates) {
      const failure = run.accountInactive
        ? { reason: 'account_inactive', detail: 'The account has no active subscription that includes batch jobs.' }
        : run.outOfCredits
          ? { reason: 'insufficient_credits', detail: 'The account ran out of credits for this billing period.' }
          : undefined;
      if (!failure) {
        runnable.push(run);
        continue;
      }
      await this.db.transaction((sql) => this.results.failRun(sql, run.runId, failure));
    }
    return runnable;
  }

  /** The tenant's solver with its key opened; none when a sealed key cannot be opened here (logged). */
  private solverOf(tenantId: string, tenant: TenantDispatchInputs): { endpoint: string; key: string } | null {
    if (!tenant.captchaSolver) return null;
    const key = openCaptchaSolverKey(this.settings.secrets, tenantId, tenant.captchaSolver.key);
    if (key === undefined) {
      this.logger.error(
        { tenant_id: tenantId },
        'CAPTCHA solver key cannot be opened (SECRETS_KEY missing or other): tasks go without a solver',
      );
      return null;
    }
    return { endpoint: tenant.captchaSolver.endpoint, key };
  }

  private async dispatchTenant(tenantId: string, shares: { runId: string; count: number }[]): Promise<number> {
    // Claims commit without waiting for the disk (Database.transaction's `durable`): the run locks
    // are held until then. Claims a Postgres crash loses are tasks queued again, or dispatched with
    // a lease that runs out: fetched again, never lost; a result for a lost claim is ignored.
    // A claim whose COMMIT lost its answer is published all the same (msg ids name the lease, so a
    // claim that did not commit cannot shadow the next one): had it committed, its tasks would wait out the lease.
    const claimed = await resultEvenIfCommitUnknown(
      this.db.transaction(
        async (sql) => {
          if (!(await this.dispatch.tryLockTenant(sql, tenantId))) return undefined;
          const tenant = await this.dispatch.tenantInputs(sql, tenantId);
          if (!tenant) return undefined;
          // Counted again under the lock (a later statement than the lock's: its snapshot sees every
          // claim of a replica that held the lock before): another replica may have dispatched since the plan was made.
          const room = tenant.concurrency - tenant.busy;
          if (room <= 0) return undefined;
          const runs = await this.dispatch.lockRuns(
            sql,
            tenantId,
            shares.map((s) => s.runId),
          );
          return this.claimIn(sql, tenant, runs, shares, room);
        },
        { durable: false },
      ),
      (error) =>
        this.logger.warn({ err: error, tenant_id: tenantId }, 'claim commit unconfirmed (database lost); publishing its tasks anyway'),
    );
    if (!claimed) return 0;
    await this.publishClaims(claimed);
    return claimed.tasks.length + claimed.refused;
  }

  /**
   * Claims, in the intake transaction whose results freed them (`freed`, by run), the next tasks of
   * those runs at once, rather than after a dispatch round: a slot is held from its claim to its
   * result's intake, so a round's wake and statements were part of every task's cycle. Only where a
   * round would share nothing differently (`planRefill`), and for a tenant no round is dispatching
   * right now (its lock, tried and never waited for). Publish the claims with `publishClaims` once
   * the transaction has committed; `roomLeft` says a tenant has room the refill did not fill (a
   * round skipped it while this held its lock, or it has several runs): a round should follow.
   * `dispatchLocked` names tenants whose dispatch lock the transaction holds already (taken with
   * the runs, `ApplyOptions.tryDispatchLocks`); the others' is tried here.
   */
  async refillIn(
    sql: Sql,
    freed: ReadonlyMap<string, { tenantId: string; slots: number }>,
    dispatchLocked: ReadonlySet<string>,
  ): Promise<Refill> {
    const byTenant = new Map<string, Map<string, number>>();
    let freedSlots = 0;
    for (const [runId, run] of freed) {
      const runs = byTenant.get(run.tenantId) ?? new Map<string, number>();
      runs.set(runId, run.slots);
      byTenant.set(run.tenantId, runs);
      freedSlots += run.slots;
    }
    const refill: Refill = { claims: [], roomLeft: false };
    for (const [tenantId, freedByRun] of byTenant) {
      if (!dispatchLocked.has(tenantId) && !(await this.dispatch.tryLockTenant(sql, tenantId))) continue;
      const inputs = await this.dispatch.refillInputs(sql, tenantId);
      if (!inputs) continue;
      const room = inputs.tenant.concurrency - inputs.tenant.busy;
      const plan = planRefill({
        inFlight: inputs.inFlight,
        freedSlots,
        window: this.settings.dispatchWindow,
        roundBudget: this.settings.dispatchBatch,
        room,
        accountCanPay: !inputs.accountInactive && !inputs.outOfCredits,
        waitingRuns: inputs.runs.map((run) => run.id),
        freedByRun,
      });
      const run = plan && inputs.runs.find((r) => r.id === plan.runId);
      const claimed = run && (await this.claimIn(sql, inputs.tenant, [run], [plan], plan.count));
      if (claimed) refill.claims.push(claimed);
      if (inputs.runs.length > 0 && room > (claimed?.tasks.length ?? 0)) refill.roomLeft = true;
    }
    return refill;
  }

  /** Publishes committed claims (from `refillIn` or a round's), and says which runs they started. */
  async publishClaims(claimed: DispatchClaims): Promise<void> {
    for (const runId of claimed.running) {
      this.metrics.transitions.inc({ to: 'running' });
      this.logger.info({ run_id: runId, tenant_id: claimed.tenantId }, 'batch run started');
    }
    await this.publish(claimed.tasks);
  }

  /**
   * Claims up to `room` tasks of the tenant's `runs` (locked by this transaction) in `shares` (each
   * up to its count), under the tenant's dispatch lock: claims, builds their messages, moves queued
   * runs to running, and fails in the same transaction the tasks refused before any worker sees
   * them. Undefined when nothing was claimed.
   */
  private async claimIn(
    sql: Sql,
    tenant: TenantDispatchInputs,
    runs: LockedRun[],
    shares: { runId: string; count: number }[],
    room: number,
  ): Promise<DispatchClaims | undefined> {
    const tenantId = runs[0]?.tenantId;
    if (tenantId === undefined) return undefined;
    const tasks: BatchTaskV1[] = [];
    const refused: TaskResult[] = [];
    const started: string[] = [];
    for (const share of shares) {
      const run = runs.find((r) => r.id === share.runId);
      if (!run || room <= 0) continue;
      const claims = await this.dispatch.claim(sql, run, Math.min(share.count, room), this.settings.leaseMs);
      if (claims.length === 0) continue;
      room -= claims.length;
      if (run.status === 'queued') started.push(run.id);
      const servedRecipes = await this.servedRecipesOf(sql, run.jobParams, claims);
      const runContext = {
        runId: run.id,
        tenantId,
        jobParams: run.jobParams,
        traceParent: run.traceParent,
        captchaSolver: this.solverOf(tenantId, tenant),
        planFeatures: tenant.planFeatures,
        planProducts: tenant.planProducts,
        forbidden: this.forbidden,
        timeoutMs: this.settings.taskTimeoutMs,
        maxBodyBytes: this.settings.maxBodyBytes,
        servedRecipes,
      };
      for (const claim of claims) {
        const built = batchTaskOf(claim, runContext);
        if ('task' in built) tasks.push(built.task);
        else refused.push(built.failed);
      }
    }
    if (tasks.length === 0 && refused.length === 0) return undefined;
    const running = await this.dispatch.markRunning(sql, started);
    // Refused tasks fail in this transaction: they never reach a worker.
    await this.results.applyIn(sql, refused);
    return { tenantId, tasks, refused: refused.length, running };
  }

  /**
   * The recipes serving the claimed tasks' domains, read only when the job or a task asks for
   * `extract`: most runs never do, and their dispatch costs no extra statement.
   */
  private async servedRecipesOf(
    sql: Sql,
    jobParams: Record<string, unknown>,
    claims: ClaimedTask[],
  ): Promise<ReadonlyMap<string, ServedExtractRecipe>> {
    const extracting = mentionsExtract(jobParams) ? claims : claims.filter((c) => mentionsExtract(c.serviceParams));
    if (extracting.length === 0) return NO_RECIPES;
    const domains = new Set<string>();
    for (const claim of extracting) {
      try {
        domains.add(registrableDomain(new URL(claim.url).hostname));
      } catch {
        // Not a URL: batchTaskOf refuses it with REQS004.
      }
    }
    return this.dispatch.servedRecipes(sql, [...domains]);
  }

  private async publish(tasks: BatchTaskV1[]): Promise<void> {
    if (tasks.length === 0) return;
    const byRun = new Map<string, BatchTaskV1[]>();
    for (const task of tasks) byRun.set(task.run_id, [...(byRun.get(task.run_id) ?? []), task]);
    for (const [runId, runTasks] of byRun) {
      const parent = contextFromTraceParent(runTasks[0].trace_parent ?? null);
      await withSpan('batch.dispatch', { parent, attributes: { 'trawl.run_id': runId, 'trawl.tasks': runTasks.length } }, async () => {
        try {
          await publishManyHeld(
            this.messaging,
            // Several to a message: JetStream's store, delivery and ack are then paid once for them.
            taskMessages(runTasks, this.settings.topology.subjects.batchTask, this.settings.tasksPerMessage, {
              task: (task) => task,
              msgId: batchTaskMsgId,
            }),
            // Tasks NATS refused (a restart) go out again after the reconnect, with the same msg id,
            // rather than wait for their lease; held at most half of it.
            {
              holdMs: Math.max(1_000, this.settings.leaseMs / 2),
              signal: this.stopping.signal,
              onHold: (error, held) =>
                this.logger.warn({ err: error, run_id: runId, held }, 'NATS refused batch tasks; holding them until it is back'),
            },
          );
          this.metrics.dispatched.inc(runTasks.length);
        } catch (error) {
          // Not a span error: the claims stay dispatched, their leases run out and the reconciler
          // queues them again.
          this.logger.warn({ err: error, run_id: runId }, 'publishing batch tasks failed');
        }
      });
    }
  }
}
