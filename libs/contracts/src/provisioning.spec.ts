import { batchMessagingDefinitions } from './batch-task.messages';
import { messagingTopology } from './messaging-topology';
import { crawlMessagingDefinitions } from './provisioning';

describe('messaging definitions', () => {
  const all = (replicas?: number) => {
    const topology = messagingTopology('trawl', replicas === undefined ? {} : { replicas });
    return [...crawlMessagingDefinitions(topology).streams, ...batchMessagingDefinitions(topology).streams];
  };

  it('gives every stream one replica by default (a single NATS server)', () => {
    expect(all().map((s) => s.replicas)).toEqual(all().map(() => 1));
  });

  it('gives every stream the replicas of the topology (NATS_STREAM_REPLICAS), so every service provisions the same', () => {
    const streams = all(3);
    expect(streams).toHaveLength(7);
    expect(new Set(streams.map((s) => s.replicas))).toEqual(new Set([3]));
  });

  it('keeps the replicas out of every name', () => {
    expect(messagingTopology('trawl', { replicas: 3 }).streams).toEqual(messagingTopology('trawl').streams);
  });
});
