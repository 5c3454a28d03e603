import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Extract (issue 21): prepared domains, shared by every tenant; the versioned recipes learned for
 * them; the pages a preparation fetched (its checkpoint: a preparation that crashes resumes from
 * them instead of fetching again); and who asked for which new domain, for the per-period quota.
 */
export class Extract1764000000140 implements MigrationInterface {
  name = 'Extract1764000000140';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE extract_domains (
        domain text PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('queued', 'preparing', 'ready', 'failed')),
        -- A new attempt for each time the domain is asked for again (failed) or prepared again;
        -- messages of an older attempt change nothing.
        attempt integer NOT NULL DEFAULT 1,
        -- While preparing: the preparer keeps it in the future; past it, the sweep asks again.
        lease_until timestamptz,
        -- The preparer that claimed the attempt: its writes are guarded by it, so a preparer
        -- thought dead that comes back writes nothing once another has taken over.
        holder text,
        -- Deliveries of this attempt's job; past the limit the attempt fails.
        deliveries integer NOT NULL DEFAULT 0,
        example_urls text[] NOT NULL DEFAULT '{}',
        pages_fetched integer NOT NULL DEFAULT 0,
        pages_analysed integer NOT NULL DEFAULT 0,
        needs_render boolean NOT NULL DEFAULT false,
        -- The recipe served now; set once the first preparation succeeded, kept while preparing again.
        recipe_version integer,
        page_types jsonb NOT NULL DEFAULT '[]',
        failure_reason text,
        requested_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        ready_at timestamptz,
        failed_at timestamptz,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX extract_domains_served ON extract_domains (domain) WHERE recipe_version IS NOT NULL`);
    await q.query(`CREATE INDEX extract_domains_unsettled ON extract_domains (lease_until) WHERE status IN ('queued', 'preparing')`);
    await q.query(`
      CREATE TABLE extract_recipes (
        domain text NOT NULL REFERENCES extract_domains (domain) ON DELETE CASCADE,
        version integer NOT NULL,
        recipe jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (domain, version)
      )`);
    await q.query(`
      CREATE TABLE extract_preparation_pages (
        domain text NOT NULL REFERENCES extract_domains (domain) ON DELETE CASCADE,
        attempt integer NOT NULL,
        url text NOT NULL,
        state text NOT NULL CHECK (state IN ('fetched', 'failed')),
        final_url text,
        -- gzip: a preparation keeps up to PREPARE_MAX_PAGES pages until it has learned from them.
        html_gzip bytea,
        error_code text,
        fetched_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (domain, attempt, url)
      )`);
    await q.query(`
      CREATE TABLE extract_domain_requests (
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        domain text NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant_id, requested_at, domain)
      )`);
    // Constant default: adding it rewrites no row.
    await q.query(
      `ALTER TABLE tenants ADD COLUMN extract_domains_per_period integer NOT NULL DEFAULT 10 CHECK (extract_domains_per_period >= 0)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN extract_domains_per_period`);
    await q.query(`DROP TABLE extract_domain_requests`);
    await q.query(`DROP TABLE extract_preparation_pages`);
    await q.query(`DROP TABLE extract_recipes`);
    await q.query(`DROP TABLE extract_domains`);
  }
}
