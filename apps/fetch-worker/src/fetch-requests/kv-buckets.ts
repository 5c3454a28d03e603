/**
 * The NATS KV buckets the Fetch API shares across workers, named after `NATS_PREFIX` so that tests
 * (and installations sharing one NATS) never share state. A bucket is the stream `KV_<bucket>`.
 */
export function fetchRequestBuckets(prefix: string): { proxySessions: string; stealthTiers: string; hostPoliteness: string } {
  return {
    proxySessions: `${prefix}_proxy_sessions`,
    stealthTiers: `${prefix}_stealth_tiers`,
    hostPoliteness: `${prefix}_host_politeness`,
  };
}
