/**
 * What every worker knows of one target host, kept in one shared record that each change rewrites
 * with compare-and-set: the limits hold across replicas and tenants because nobody decides alone.
 */
export interface HostState {
  /** Loads in flight: permit id → when it lapses (ms since the epoch), should its holder die. */
  permits: Record<string, number>;
  /** Earliest start of the next load under the rate limit (GCRA's theoretical arrival time), ms. */
  next: number;
  /** No load starts before this (a 429 or 503 asked the cluster to back off), ms since the epoch. */
  pausedUntil: number;
  /** 429/503 answers in a row: a pause without `Retry-After` doubles with each; any other answer resets it. */
  strikes: number;
}

/** The operator's per-host limits, cluster-wide (`HOST_CONCURRENCY_LIMIT`, `HOST_RATE_LIMIT`). */
export interface HostLimits {
  /** Most loads in flight to one host; 0: no limit. */
  concurrency: number;
  /** Most loads started per second on one host; 0: no limit. */
  ratePerSecond: number;
}

/** How a host that answers 429 or 503 is slowed down (`HOST_BACKOFF*`). */
export interface BackoffRules {
  enabled: boolean;
  /** Pause after the first 429/503 without `Retry-After`, in ms; doubles with each strike. */
  baseMs: number;
  /** Longest pause, whatever `Retry-After` asks, in ms. */
  maxMs: number;
}

export const EMPTY_HOST_STATE: HostState = Object.freeze({ permits: Object.freeze({}), next: 0, pausedUntil: 0, strikes: 0 }) as HostState;

/** Why a load waits for its host: the metric's `reason`. */
export type WaitReason = 'concurrency' | 'rate' | 'backoff';

export type Admission =
  /** The permit is recorded in `state`; the load may start at `startAt` (≥ now). */
  | { admitted: true; state: HostState; startAt: number; reason?: WaitReason }
  /** Nothing changed: the earliest start is past the caller's latest, or every slot is taken. */
  | { admitted: false; reason: WaitReason; retryAt?: number };

/** Whether the operator set a per-host limit (else loads are counted nowhere and only pauses are waited out). */
export function isLimited(limits: HostLimits): boolean {
  return limits.concurrency > 0 || limits.ratePerSecond > 0;
}

/**
 * Admits one load: a free slot, and a start no earlier than the
 * pause's end and the rate limit's next start, no later than `latestStart`. An admitted load holds
 * its slot from now, through its wait, until it is released or `lapsesAt` passes.
 */
export function admit(
  state: HostState,
  limits: HostLimits,
  now: number,
  permit: { id: string; lapsesAt: number },
  latestStart: number,
): Admission {
  const paused = state.pausedUntil > now ? state.pausedUntil : now;
  const startAt = Math.max(paused, limits.ratePerSecond > 0 ? state.next : now);
  const reason: WaitReason | undefined = startAt <= now ? undefined : startAt === paused ? 'backoff' : 'rate';
  // A load that may start now always may, however late its caller thought it was.
  if (reason !== undefined && startAt > latestStart) return { admitted: false, reason, retryAt: startAt };
  const permits = livePermits(state.permits, now);
  if (limits.concurrency > 0 && Object.keys(permits).length >= limits.concurrency) return { admitted: false, reason: 'concurrency' };
  const interval = limits.ratePerSecond > 0 ? 1000 / limits.ratePerSecond : 0;
  return {
    admitted: true,
    startAt,
    reason,
    state: {
      ...state,
      permits: { ...permits, [permit.id]: permit.lapsesAt + (startAt - now) },
      next: interval > 0 ? startAt + interval : state.next,
    },
  };
}

/** What a load learnt of its host: the status it answered, and its `Retry-After` in ms. */
export interface LoadOutcome {
  /** The host's answer; undefined when the load failed before one (connection, deadline). */
  status?: number;
  retryAfterMs?: number;
}

/**
 * Whether an answer asks the client to slow down: a 429, or a 503 that says when to come back. A
 * bare 503 is more often an outage or a WAF's challenge page, which slowing down does not cure.
 */
export function asksToSlowDown(outcome: LoadOutcome): boolean {
  return outcome.status === 429 || (outcome.status === 503 && outcome.retryAfterMs !== undefined);
}

/**
 * The state after a load ends: its permit gone; a slow-down answer pauses the host (for `Retry-After`, else
 * `baseMs` doubled per strike, at most `maxMs`) and adds a strike; any other answer clears strikes.
 * `changed` is false when nothing but lapsed bookkeeping would be written.
 */
export function release(
  state: HostState,
  permitId: string | undefined,
  outcome: LoadOutcome,
  now: number,
  rules: BackoffRules,
): { state: HostState; changed: boolean } {
  const held = permitId !== undefined && permitId in state.permits;
  const permits = livePermits(state.permits, now);
  if (permitId !== undefined) delete permits[permitId];
  let { pausedUntil, strikes } = state;
  if (rules.enabled && asksToSlowDown(outcome)) {
    strikes += 1;
    const pause = Math.min(rules.maxMs, outcome.retryAfterMs ?? rules.baseMs * 2 ** Math.min(strikes - 1, 20));
    pausedUntil = Math.max(pausedUntil, now + pause);
  } else if (outcome.status !== undefined && strikes > 0) {
    strikes = 0;
  }
  const changed = held || strikes !== state.strikes || pausedUntil !== state.pausedUntil;
  return { state: { ...state, permits, pausedUntil, strikes }, changed };
}

/**
 * `Retry-After` in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or
 * unreadable. A date in the past is no wait.
 */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function livePermits(permits: Record<string, number>, now: number): Record<string, number> {
  const live: Record<string, number> = {};
  for (const [id, lapsesAt] of Object.entries(permits)) if (lapsesAt > now) live[id] = lapsesAt;
  return live;
}
