import { MigrationInterface, QueryRunner } from 'typeorm';

/** Webhook signing keys (secrets sealed with SECRETS_KEY), webhook deliveries and their attempts. */
export class Webhooks1764000000010 implements MigrationInterface {
  name = 'Webhooks1764000000010';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_signing_keys (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        kid text NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'candidate', 'retired')),
        secret_sealed bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        activated_at timestamptz,
        retired_at timestamptz,
        PRIMARY KEY (tenant_id, kid)
      )`);
    // At most one active and one candidate key per tenant, whatever races the API loses.
    await q.query(`CREATE UNIQUE INDEX webhook_signing_keys_one_active ON webhook_signing_keys (tenant_id) WHERE status = 'active'`);
    await q.query(`CREATE UNIQUE INDEX webhook_signing_keys_one_candidate ON webhook_signing_keys (tenant_id) WHERE status = 'candidate'`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        event_id uuid NOT NULL UNIQUE,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        job_id text NOT NULL,
        run_id text NOT NULL,
        event_type text NOT NULL,
        url text NOT NULL,
        signed boolean NOT NULL,
        body text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX webhook_deliveries_by_job ON webhook_deliveries (tenant_id, job_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE webhook_delivery_attempts (
        delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        status_code integer,
        error text,
        elapsed_ms integer NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['webhook_delivery_attempts', 'webhook_deliveries', 'webhook_signing_keys']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
