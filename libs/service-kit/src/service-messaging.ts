import {
  batchMessagingDefinitions,
  ConsumerDefinition,
  crawlMessagingDefinitions,
  extractMessagingDefinitions,
  MessagingTopology,
  StreamDefinition,
  webhookConsumerDefinition,
} from '@trawl/contracts';

/** The streams a service reads or writes and the durable consumers it reads from, by name. */
export interface ServiceMessaging {
  /** Stream names from `topology.streams`. */
  streams: string[];
  /** Durable names (`topology.consumers`, `webhookConsumerDefinition(topology).durable`). */
  consumers: string[];
}

/** The definitions (libs/contracts) of what a service uses, in the order it lists them. */
export interface MessagingDefinitions {
  streams: StreamDefinition[];
  consumers: ConsumerDefinition[];
}

/**
 * Looks up the definitions of the streams and consumers a service names among every definition in
 * libs/contracts, so each is provisioned from the one place it is defined. Throws on a name that
 * has no definition (a typo would otherwise provision nothing and fail later, at the first pull).
 */
export function messagingDefinitionsOf(topology: MessagingTopology, uses: ServiceMessaging): MessagingDefinitions {
  const crawl = crawlMessagingDefinitions(topology);
  const batch = batchMessagingDefinitions(topology);
  const extract = extractMessagingDefinitions(topology);
  const streams = new Map([...crawl.streams, ...batch.streams, ...extract.streams].map((s) => [s.name, s]));
  const consumers = new Map(
    [...crawl.consumers, ...batch.consumers, ...extract.consumers, webhookConsumerDefinition(topology)].map((c) => [c.durable, c]),
  );
  return {
    streams: uses.streams.map((name) => found(streams.get(name), `stream ${name}`)),
    consumers: uses.consumers.map((durable) => found(consumers.get(durable), `consumer ${durable}`)),
  };
}

function found<T>(definition: T | undefined, what: string): T {
  if (definition === undefined) throw new Error(`No definition of ${what} in @trawl/contracts`);
  return definition;
}
