import type { OutboxRelay } from '@trawl/messaging';
import { PeriodicLoop, PeriodicLoopOptions } from './periodic-loop';

/** How often an idle relay looks for new outbox rows, in ms: the usual lag of an event behind its commit. */
const RELAY_POLL_MS = 200;
/** Longest wait between passes while they fail (Postgres or NATS down), in ms. */
const RELAY_MAX_BACKOFF_MS = 5_000;

/**
 * The loop that runs an outbox relay in a service: a pass at once while passes fill their batch
 * (rows remain), else every 200 ms; failed passes back off up to 5 s. `wake()` looks at once.
 */
export function outboxRelayLoop(relay: Pick<OutboxRelay, 'relayOnce' | 'batchSize'>, logger: PeriodicLoopOptions['logger']): PeriodicLoop {
  return new PeriodicLoop({
    name: 'outbox relay pass',
    intervalMs: RELAY_POLL_MS,
    maxBackoffMs: RELAY_MAX_BACKOFF_MS,
    logger,
    pass: async () => ({ more: (await relay.relayOnce()) >= relay.batchSize }),
  });
}
