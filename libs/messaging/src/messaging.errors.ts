import { CodedError } from '@trawl/errors';

/** Why a messaging operation failed. Callers map each code to "retry" or "give up". */
export enum MessagingErrorCode {
  /** No NATS server answered within the initial connect window. */
  ConnectFailed = 'messaging_connect_failed',
  /** The server answers but JetStream is not enabled for the account. */
  JetStreamUnavailable = 'jetstream_unavailable',
  /** A stream exists with a setting that cannot be changed in place (retention, storage). */
  StreamConfigConflict = 'stream_config_conflict',
  /** A consumer exists with a setting that cannot be changed in place, or the server refused the update. */
  ConsumerConfigConflict = 'consumer_config_conflict',
  /** The durable consumer a runner should read from does not exist (provision it first). */
  ConsumerNotFound = 'consumer_not_found',
  /** One or more messages were not stored by JetStream (no stream, timeout, disconnected). */
  PublishFailed = 'publish_failed',
  /** A runner was started again after it stopped; create a new one instead. */
  ConsumerStopped = 'consumer_stopped',
  /** An option is out of range or malformed (e.g. an outbox table name that is not an identifier). */
  InvalidOption = 'invalid_option',
  /** Streamed request/reply: no server subscribes to the subject. */
  RpcNoResponders = 'rpc_no_responders',
  /** Streamed request/reply: every server asked was full (or did not answer in time). */
  RpcBusy = 'rpc_busy',
  /** Streamed request/reply: the server accepted the call, then went silent (it died or lost NATS). */
  RpcWorkerLost = 'rpc_worker_lost',
  /** Streamed request/reply: the caller cancelled; thrown once the server's handler ended. */
  RpcCancelled = 'rpc_cancelled',
  /** Streamed request/reply: the server's handler threw. */
  RpcRemoteFailure = 'rpc_remote_failure',
  /**
   * The stream of spilled bodies could not be read or purged (NATS away or too slow): try again
   * later. A body that is not there (expired, purged) is not this error.
   */
  BodyStoreUnavailable = 'body_store_unavailable',
}

/** A failure of the messaging layer; the underlying NATS error, if any, is in `cause`. */
export class MessagingError extends CodedError<MessagingErrorCode> {}
