import { batchMessagingDefinitions, crawlMessagingDefinitions, messagingTopology, webhookConsumerDefinition } from '@trawl/contracts';
import { messagingDefinitionsOf } from './service-messaging';

describe(messagingDefinitionsOf.name, () => {
  const topology = messagingTopology('kit', { replicas: 3 });

  it('gives the contracts definitions of the streams and consumers named, in the order named', () => {
    const crawl = crawlMessagingDefinitions(topology);
    const batch = batchMessagingDefinitions(topology);
    const definitions = messagingDefinitionsOf(topology, {
      streams: [topology.streams.events, topology.streams.batchWork],
      consumers: [webhookConsumerDefinition(topology).durable, topology.consumers.crawlCoordinators],
    });
    expect(definitions).toEqual({
      streams: [
        crawl.streams.find((s) => s.name === topology.streams.events),
        batch.streams.find((s) => s.name === topology.streams.batchWork),
      ],
      consumers: [webhookConsumerDefinition(topology), crawl.consumers.find((c) => c.durable === topology.consumers.crawlCoordinators)],
    });
    expect(definitions.streams.map((s) => s.replicas)).toEqual([3, 3]);
  });

  it('refuses a name that has no definition', () => {
    expect(() => messagingDefinitionsOf(topology, { streams: ['KIT_NOWHERE'], consumers: [] })).toThrow(
      'No definition of stream KIT_NOWHERE',
    );
    expect(() => messagingDefinitionsOf(topology, { streams: [], consumers: ['nobody'] })).toThrow('No definition of consumer nobody');
  });
});
