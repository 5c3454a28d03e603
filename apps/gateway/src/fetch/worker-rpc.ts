import { MessagingConnection, StreamedRpcClient, type NotTakenReason } from '@trawl/messaging';
import type { GatewayConfig } from '../config';

/**
 * A streamed request/reply client to the fetch workers (the Fetch API's, the Map API's), with the
 * gateway's `FETCH_RPC_*` timings; `onNotTaken` counts each worker that did not take a call.
 */
export function workerRpcClient(
  messaging: MessagingConnection,
  config: GatewayConfig,
  onNotTaken: (reason: NotTakenReason) => void,
): StreamedRpcClient {
  return new StreamedRpcClient(messaging.nc, {
    acceptTimeoutMs: config.FETCH_RPC_ACCEPT_TIMEOUT_MS,
    silenceTimeoutMs: config.FETCH_RPC_SILENCE_TIMEOUT_MS,
    busyRetries: config.FETCH_RPC_BUSY_RETRIES,
    onNotTaken,
  });
}
