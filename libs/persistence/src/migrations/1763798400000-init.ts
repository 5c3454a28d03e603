import { MigrationInterface, QueryRunner } from 'typeorm';

/** Tenants, keys, credits, crawls with their frontier and kept pages, idempotency, outbox, leases. */
export class Init1763798400000 implements MigrationInterface {
  name = 'Init1763798400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        credits_limit bigint NOT NULL,
        credits_used bigint NOT NULL DEFAULT 0,
        period_started_at timestamptz NOT NULL DEFAULT now(),
        period_ends_at timestamptz NOT NULL,
        concurrency integer NOT NULL,
        max_active_jobs integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        key_hash bytea NOT NULL UNIQUE,
        key_hint text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        revoked_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_keys_tenant ON api_keys (tenant_id)`);
    // One row per billed request: the ledger is the truth, tenants.credits_used its running sum.
    // \`ref\` makes billing idempotent (a result applied twice bills once).
    await q.query(`
      CREATE TABLE credit_ledger (
        id bigserial PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        credits integer NOT NULL,
        product text NOT NULL,
        tier text NOT NULL,
        ref text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (tenant_id, ref)
      )`);
    await q.query(`
      CREATE TABLE crawls (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed')),
        stop_reason text CHECK (stop_reason IN ('max_items', 'max_pages', 'user')),
        error_code text,
        error_detail text,
        url text NOT NULL,
        scope_domain text NOT NULL,
        depth integer,
        max_items integer NOT NULL,
        max_pages integer NOT NULL,
        include_patterns text[] NOT NULL DEFAULT '{}',
        exclude_patterns text[] NOT NULL DEFAULT '{}',
        output_format text,
        -- W3C traceparent of the request that started the crawl: its pages are traced under it.
        trace_parent text,
        pages_dispatched integer NOT NULL DEFAULT 0,
        pages_fetched integer NOT NULL DEFAULT 0,
        pages_failed integer NOT NULL DEFAULT 0,
        items_found integer NOT NULL DEFAULT 0,
        duplicates_removed bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        stopped_at timestamptz,
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX crawls_tenant_newest ON crawls (tenant_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX crawls_running ON crawls (tenant_id) WHERE status = 'running'`);
    // The frontier: every URL a crawl met, once (url_key is the md5 of the dedup key).
    // item_seq orders the results; it is assigned under the crawl row lock, so a reader that sees
    // item n also sees every item before it, and a cursor never skips one.
    await q.query(`
      CREATE TABLE crawl_frontier (
        id bigserial PRIMARY KEY,
        crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
        url_key bytea NOT NULL,
        url text NOT NULL,
        depth integer NOT NULL,
        item_seq integer,
        state text NOT NULL CHECK (state IN ('queued', 'dispatched', 'done', 'dropped')),
        wants_links boolean NOT NULL,
        wants_content boolean NOT NULL,
        content_status text CHECK (content_status IN ('pending', 'fetched', 'failed')),
        attempt integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        UNIQUE (crawl_id, url_key)
      )`);
    await q.query(`CREATE UNIQUE INDEX crawl_frontier_items ON crawl_frontier (crawl_id, item_seq) WHERE item_seq IS NOT NULL`);
    await q.query(`CREATE INDEX crawl_frontier_queued ON crawl_frontier (crawl_id, id) WHERE state = 'queued'`);
    await q.query(`CREATE INDEX crawl_frontier_dispatched ON crawl_frontier (crawl_id, lease_until) WHERE state = 'dispatched'`);
    await q.query(`
      CREATE TABLE crawl_contents (
        frontier_id bigint PRIMARY KEY REFERENCES crawl_frontier (id) ON DELETE CASCADE,
        crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
        content_type text,
        html text NOT NULL,
        fetched_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE idempotency_keys (
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        scope text NOT NULL,
        key text NOT NULL,
        body_hash bytea NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'done')),
        resource_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, scope, key)
      )`);
    await q.query(`
      CREATE TABLE outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        subject text NOT NULL,
        payload jsonb NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await q.query(`CREATE INDEX outbox_unpublished ON outbox (created_at) WHERE published_at IS NULL`);
    // Singletons (sweeps, schedule firing) hold a lease row and guard their writes with its epoch.
    await q.query(`
      CREATE TABLE leases (
        name text PRIMARY KEY,
        holder text NOT NULL,
        epoch bigint NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'leases',
      'outbox',
      'idempotency_keys',
      'crawl_contents',
      'crawl_frontier',
      'crawls',
      'credit_ledger',
      'api_keys',
      'tenants',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
