import type { MessagingConnection } from '@trawl/messaging';
import type { ReadinessCheck } from '@trawl/observability';
import { Database, SchemaReadiness } from '@trawl/persistence';

/** Names of the readiness checks, the same on every service (`/readyz` `checks` and `reasons`). */
export const READINESS_CHECK_NAMES = { postgres: 'postgres', nats: 'nats', schema: 'schema' } as const;

/**
 * The readiness checks of a service: `postgres` (a query goes through) and `schema` (no migration
 * of this build is missing) when it holds a database, and `nats` (connected).
 */
export function serviceReadinessChecks(connections: { db?: Database; messaging: MessagingConnection }): ReadinessCheck[] {
  const { db, messaging } = connections;
  const nats: ReadinessCheck = { name: READINESS_CHECK_NAMES.nats, check: () => messaging.isConnected() };
  if (!db) return [nats];
  // Never migrated here (docs/operating.md, "Upgrades"): a schema behind the build is reported, not fixed.
  const schema = new SchemaReadiness(db);
  return [
    { name: READINESS_CHECK_NAMES.postgres, check: () => db.ping() },
    nats,
    { name: READINESS_CHECK_NAMES.schema, check: () => schema.check() },
  ];
}
