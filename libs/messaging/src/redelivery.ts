/** Nak delay of the first failed delivery, in ms. */
const FIRST_RETRY_DELAY_MS = 1_000;
/** Longest nak delay after a handler failure, in ms. */
const MAX_RETRY_DELAY_MS = 30_000;

/**
 * Nak delay for a message whose handler threw, in ms: 1 s on the first delivery, doubling with
 * each delivery, at most 30 s. Keeps a failing dependency from being hammered in a tight loop.
 */
export function retryDelayMs(deliveryCount: number): number {
  const deliveries = Number.isFinite(deliveryCount) ? Math.floor(deliveryCount) : 1;
  const exponent = Math.max(0, Math.min(30, deliveries - 1));
  return Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** exponent);
}
