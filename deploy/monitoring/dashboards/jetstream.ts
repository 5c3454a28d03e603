import type { Dashboard } from '@grafana/schema';
import { NS, dashboard, datasourceVariable, namespaceVariable, row, textboxVariable, timeseries } from './builder';
import { rate } from './promql';

/**
 * Trawl's durables on its streams (libs/contracts): the NATS exporter's series carry the NATS
 * server's namespace, not Trawl's, so they are picked by stream prefix and consumer name.
 */
const CONSUMERS = 'consumer_name=~"fetch-workers|batch-workers|crawl-coordinators|batch-schedulers|webhook-dispatchers"';
const OURS = `stream_name=~"\${prefix}_.+", ${CONSUMERS}`;

function perConsumer(metric: string): string {
  return `max by (stream_name, consumer_name) (${metric}{${OURS}})`;
}

export const jetstream: Dashboard = dashboard({
  uid: 'trawl-jetstream',
  title: 'Trawl / JetStream consumers',
  description:
    "Trawl's JetStream work queues and their consumers, from prometheus-nats-exporter (-jsz=all -prefix=nats, as the official NATS chart runs it), " +
    'next to what the services count themselves. Streams are <PREFIX>_CRAWL_WORK, _CRAWL_RESULTS, _BATCH_WORK, _BATCH_RESULTS, _EVENTS (NATS_PREFIX upper-cased).',
  variables: [datasourceVariable, namespaceVariable, textboxVariable('prefix', 'Stream prefix (NATS_PREFIX, upper case)', 'TRAWL')],
  items: [
    row('Consumers (NATS exporter)'),
    timeseries(
      'Pending (not yet delivered)',
      [{ expr: perConsumer('nats_consumer_num_pending'), legend: '{{stream_name}} / {{consumer_name}}' }],
      {
        description:
          'Messages waiting for each consumer: the backlog KEDA scales the fetch workers on (alert TrawlJetStreamBacklogGrowing).',
      },
    ),
    timeseries(
      'Delivered, not yet acknowledged',
      [{ expr: perConsumer('nats_consumer_num_ack_pending'), legend: '{{stream_name}} / {{consumer_name}}' }],
      {
        description: 'Messages handed to a consumer and being worked on.',
      },
    ),
    timeseries(
      'Redelivered, not yet acknowledged',
      [{ expr: perConsumer('nats_consumer_num_redelivered'), legend: '{{stream_name}} / {{consumer_name}}' }],
      {
        description: 'Messages delivered more than once and still not acknowledged (alert TrawlJetStreamRedeliveries).',
      },
    ),
    timeseries(
      'Pull requests waiting',
      [{ expr: perConsumer('nats_consumer_num_waiting'), legend: '{{stream_name}} / {{consumer_name}}' }],
      {
        description: 'Pull requests of idle consumers waiting for messages: many waiting and many pending would mean a delivery problem.',
      },
    ),
    timeseries(
      'Deliveries per second',
      [
        {
          expr: `max by (stream_name, consumer_name) (rate(nats_consumer_delivered_consumer_seq{${OURS}}[$__rate_interval]))`,
          legend: '{{stream_name}} / {{consumer_name}}',
        },
      ],
      {
        description: "Rate of the consumer's delivery sequence: messages delivered per second, redeliveries included.",
        unit: 'ops',
      },
    ),
    timeseries(
      'Messages in stream',
      [{ expr: `max by (stream_name) (nats_stream_total_messages{stream_name=~"\${prefix}_.+"})`, legend: '{{stream_name}}' }],
      {
        description: "Messages stored in each of Trawl's streams (work queues drop a message once acknowledged).",
      },
    ),

    row("The services' side"),
    timeseries(
      'Published and taken in',
      [
        { expr: rate('trawl_crawl_pages_dispatched_total'), legend: 'crawl pages published' },
        { expr: rate('trawl_crawl_results_applied_total'), legend: 'crawl results applied' },
        { expr: rate('trawl_batch_tasks_dispatched_total'), legend: 'batch tasks published' },
        { expr: rate('trawl_batch_task_results_total', [], `${NS}, outcome="applied"`), legend: 'batch results applied' },
      ],
      { description: 'What the coordinator and scheduler publish and take back per second.', unit: 'ops' },
    ),
    timeseries(
      'Late and duplicate results',
      [
        { expr: rate('trawl_crawl_results_stale_total'), legend: 'crawl results stale' },
        { expr: rate('trawl_batch_task_results_total', [], `${NS}, outcome="ignored"`), legend: 'batch results ignored' },
        { expr: rate('trawl_worker_batch_tasks_total', [], `${NS}, outcome="stale"`), legend: 'batch tasks stale (worker)' },
      ],
      { description: 'Results that answered an outdated claim: the visible side of redeliveries.', unit: 'ops' },
    ),
  ],
});
