/** A run with queued tasks, as the dispatcher sees it at the start of a round. */
export interface DispatchableRun {
  runId: string;
  tenantId: string;
  /** Queued tasks (counted up to a cap: only a round's worth matters). */
  queued: number;
}

/** A tenant's room: its batch concurrency minus its tasks in flight. */
export type TenantRoom = ReadonlyMap<string, number>;

/** How many tasks to claim from each run, grouped by tenant, tenants in the order they were served. */
export interface DispatchPlan {
  tenants: { tenantId: string; runs: { runId: string; count: number }[] }[];
  total: number;
}

/**
 * Shares a round's `budget` of tasks fairly: round-robin over tenants one task at a time, and
 * within a tenant round-robin over its runs (oldest first), never past a tenant's room. A tenant
 * with one huge run and a tenant with a small one get the same rate while both have work; a tenant
 * with three runs does not get three times the share of a tenant with one. `rotation` moves the
 * starting tenant from round to round, so a budget smaller than the tenant count still reaches
 * every tenant in turn.
 */
export function planDispatch(runs: readonly DispatchableRun[], room: TenantRoom, budget: number, rotation = 0): DispatchPlan {
  const byTenant = new Map<string, { runId: string; left: number; count: number }[]>();
  for (const run of runs) {
    if (run.queued <= 0) continue;
    const list = byTenant.get(run.tenantId) ?? [];
    list.push({ runId: run.runId, left: run.queued, count: 0 });
    byTenant.set(run.tenantId, list);
  }
  const ids = [...byTenant.keys()].filter((id) => (room.get(id) ?? 0) > 0);
  const start = ids.length === 0 ? 0 : ((rotation % ids.length) + ids.length) % ids.length;
  const order = [...ids.slice(start), ...ids.slice(0, start)];
  const left = new Map(order.map((id) => [id, room.get(id) ?? 0]));
  const nextRun = new Map(order.map((id) => [id, 0]));
  let total = 0;
  let active = order.filter((id) => hasWork(byTenant.get(id)!));
  while (total < budget && active.length > 0) {
    for (const tenantId of active) {
      if (total >= budget) break;
      const tenantRuns = byTenant.get(tenantId)!;
      // The tenant's next run with work, round-robin.
      let index = nextRun.get(tenantId)!;
      for (let tries = 0; tries < tenantRuns.length && tenantRuns[index].left === 0; tries++) index = (index + 1) % tenantRuns.length;
      const run = tenantRuns[index];
      run.left--;
      run.count++;
      total++;
      nextRun.set(tenantId, (index + 1) % tenantRuns.length);
      left.set(tenantId, left.get(tenantId)! - 1);
    }
    active = active.filter((id) => left.get(id)! > 0 && hasWork(byTenant.get(id)!));
  }
  return {
    tenants: order
      .map((tenantId) => ({
        tenantId,
        runs: byTenant
          .get(tenantId)!
          .filter((r) => r.count > 0)
          .map((r) => ({ runId: r.runId, count: r.count })),
      }))
      .filter((t) => t.runs.length > 0),
    total,
  };
}

function hasWork(runs: { left: number }[]): boolean {
  return runs.some((r) => r.left > 0);
}

/** What decides whether an intake fills a tenant's freed slots itself (see `planRefill`). */
export interface RefillCase {
  /** Batch tasks in flight across every tenant, and the slots this intake freed across all of them. */
  inFlight: number;
  freedSlots: number;
  /** The dispatch window and a round's budget (`BATCH_DISPATCH_WINDOW`, `BATCH_DISPATCH_BATCH`). */
  window: number;
  roundBudget: number;
  /** The tenant's concurrency less its tasks in flight, read under its dispatch lock. */
  room: number;
  /** The account is active with the batch product and has credits left. */
  accountCanPay: boolean;
  /** The tenant's runs that may dispatch and have queued tasks (two are enough to know there is not one). */
  waitingRuns: readonly string[];
  /** The slots this intake freed, by run of the tenant. */
  freedByRun: ReadonlyMap<string, number>;
}

/**
 * The run and task count an intake claims for a tenant's freed slots, or undefined where a round
 * would share them differently: the tenant has another run waiting (rounds go round-robin over its
 * runs), the only waiting run is not one the intake freed slots of (its row is not the intake's
 * to claim under), the account cannot pay (the round fails its runs), or the window would not keep
 * room for a whole round (near its end, rounds share it among tenants). Never more than the run
 * freed nor the tenant's room.
 */
export function planRefill(c: RefillCase): { runId: string; count: number } | undefined {
  if (c.waitingRuns.length !== 1 || !c.accountCanPay) return undefined;
  if (c.inFlight + c.freedSlots + c.roundBudget > c.window) return undefined;
  const [runId] = c.waitingRuns;
  const count = Math.min(c.room, c.freedByRun.get(runId) ?? 0);
  return count > 0 ? { runId, count } : undefined;
}
