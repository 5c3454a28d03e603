import { messagingTopology } from '@trawl/contracts';
import { MessagingConnection } from '@trawl/messaging';

/** Where a crawl's in-flight pages sit at one moment, from JetStream's consumer state. */
export interface QueueDepth {
  /** Page tasks in the work queue that no worker has taken yet. */
  tasksWaiting: number;
  /** Page tasks delivered to workers and not yet acknowledged (being fetched or published). */
  tasksAtWorkers: number;
  /** Page results no coordinator has taken yet. */
  resultsWaiting: number;
  /** Page results delivered to a coordinator and not yet acknowledged (in an intake batch). */
  resultsAtCoordinator: number;
}

/** Mean of each {@link QueueDepth} field over the samples. */
export function meanDepth(samples: readonly QueueDepth[]): QueueDepth | undefined {
  if (samples.length === 0) return undefined;
  const sum = (key: keyof QueueDepth): number => samples.reduce((total, s) => total + s[key], 0) / samples.length;
  return {
    tasksWaiting: sum('tasksWaiting'),
    tasksAtWorkers: sum('tasksAtWorkers'),
    resultsWaiting: sum('resultsWaiting'),
    resultsAtCoordinator: sum('resultsAtCoordinator'),
  };
}

/**
 * Samples the work queue and the results queue of the platform's NATS prefix every `intervalMs`
 * (default 500 ms), to show whether pages wait for a worker, for the coordinator, or for neither.
 */
export async function sampleQueueDepth(prefix: string, intervalMs = 500): Promise<{ stop(): Promise<QueueDepth[]> }> {
  const messaging = await MessagingConnection.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'crawl-bench' });
  const topology = messagingTopology(prefix);
  const samples: QueueDepth[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const [work, results] = await Promise.all([
          messaging.jsm.consumers.info(topology.streams.crawlWork, topology.consumers.fetchWorkers),
          messaging.jsm.consumers.info(topology.streams.crawlResults, topology.consumers.crawlCoordinators),
        ]);
        samples.push({
          tasksWaiting: work.num_pending,
          tasksAtWorkers: work.num_ack_pending,
          resultsWaiting: results.num_pending,
          resultsAtCoordinator: results.num_ack_pending,
        });
      } catch {
        // a missed sample is not worth failing the benchmark for
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await messaging.close();
      return samples;
    },
  };
}
