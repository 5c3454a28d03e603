export { MessagingConnection } from './connection';
export { writeToOutbox, type OutboxSql } from './outbox';
export type { MessagingOptions } from './connection';
export { MessagingError, MessagingErrorCode } from './messaging.errors';
export { deleteStreams, ensureConsumer, ensureStream } from './provisioning';
export type { ConsumerSpec, StreamSpec } from './provisioning';
export { publishJson, publishManyHeld, publishManyJson } from './publish';
export type { HeldPublishOptions, PublishItem, PublishManyOptions, PublishOptions } from './publish';
export type { ConsumerRunnerOptions, Disposition, InboundMessage, MessagingLogger } from './inbound-message';
export { retryDelayMs } from './redelivery';
export { DEFAULT_STOP_DEADLINE_MS, MessageConsumer } from './message-consumer';
export type { MessageConsumerOptions } from './message-consumer';
export { BatchConsumer } from './batch-consumer';
export type { BatchConsumerOptions } from './batch-consumer';
export { OutboxRelay } from './outbox-relay';
export type { OutboxRelayOptions } from './outbox-relay';
export { StreamedRpcClient, StreamedRpcServer } from './streamed-rpc';
export type {
  CallOptions,
  NotTakenReason,
  RpcHandler,
  RpcReply,
  RpcRequest,
  StreamedReply,
  StreamedRpcClientOptions,
  StreamedRpcServerOptions,
} from './streamed-rpc';
export { BODY_CHUNK_BYTES, bodyChunkBytes, maxPayloadBytes, messageRoomBytes } from './body-chunks';
export { ByteBudget } from './byte-budget';
export { groupsWithinBytes, SpilledBodies } from './spilled-bodies';
export type { SpilledBodiesOptions, SpilledBodyRef } from './spilled-bodies';
