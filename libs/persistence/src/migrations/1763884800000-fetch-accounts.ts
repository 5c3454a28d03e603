import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fetch API accounts and limits: plan and standing of a tenant, its CAPTCHA solver, and the tables
 * that enforce concurrency, rate and client-address limits across every gateway replica.
 */
export class FetchAccounts1763884800000 implements MigrationInterface {
  name = 'FetchAccounts1763884800000';

  async up(q: QueryRunner): Promise<void> {
    // Defaults keep tenants made before this migration working as before: every feature and
    // product, an active subscription, a verified e-mail.
    await q.query(`
      ALTER TABLE tenants
        ADD COLUMN period_days integer NOT NULL DEFAULT 30,
        ADD COLUMN plan_features text[] NOT NULL DEFAULT '{js_render,premium_proxy,proxy_mode}',
        ADD COLUMN plan_products text[] NOT NULL DEFAULT '{fetch,crawl,batch,extract}',
        ADD COLUMN subscription_status text NOT NULL DEFAULT 'active'
          CHECK (subscription_status IN ('active', 'none', 'cancelled')),
        ADD COLUMN email_verified boolean NOT NULL DEFAULT true,
        ADD COLUMN rate_limit_per_minute integer NOT NULL DEFAULT 600,
        ADD COLUMN captcha_solver_endpoint text,
        ADD COLUMN captcha_solver_key text`);
    // Concurrency slots: a tenant may hold slots 1..concurrency; a row is a held slot until released
    // or until its lease passes (a crashed gateway's slots free themselves).
    await q.query(`
      CREATE TABLE fetch_slots (
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        slot integer NOT NULL,
        holder text NOT NULL,
        lease_until timestamptz NOT NULL,
        PRIMARY KEY (tenant_id, slot)
      )`);
    // Fixed one-minute rate window per tenant: one row, rewritten in place.
    await q.query(`
      CREATE TABLE fetch_rate_windows (
        tenant_id uuid PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
        window_start timestamptz NOT NULL,
        requests integer NOT NULL
      )`);
    // Error rate of a client address over a window, and its block.
    await q.query(`
      CREATE TABLE client_address_health (
        address inet PRIMARY KEY,
        window_start timestamptz NOT NULL,
        requests integer NOT NULL,
        errors integer NOT NULL,
        blocked_until timestamptz
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS client_address_health`);
    await q.query(`DROP TABLE IF EXISTS fetch_rate_windows`);
    await q.query(`DROP TABLE IF EXISTS fetch_slots`);
    await q.query(`
      ALTER TABLE tenants
        DROP COLUMN period_days, DROP COLUMN plan_features, DROP COLUMN plan_products,
        DROP COLUMN subscription_status, DROP COLUMN email_verified, DROP COLUMN rate_limit_per_minute,
        DROP COLUMN captcha_solver_endpoint, DROP COLUMN captcha_solver_key`);
  }
}
