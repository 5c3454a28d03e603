import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenant administration (issue 20): tenants can be suspended, a tenant holds several named API keys
 * (the one key of an existing tenant is named `default`), each key remembers its last use (to the
 * minute) and its last rotation, and every admin change is a row of `admin_audit`.
 */
export class TenantAdmin1764000000130 implements MigrationInterface {
  name = 'TenantAdmin1764000000130';

  async up(q: QueryRunner): Promise<void> {
    // Nullable without a default: adding them rewrites no table.
    await q.query(`ALTER TABLE tenants ADD COLUMN suspended_at timestamptz`);
    await q.query(`CREATE INDEX tenants_list ON tenants (created_at DESC, id DESC)`);
    // The constant default names every existing key `default` without a rewrite; new keys name theirs.
    await q.query(`ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT 'default'`);
    await q.query(`ALTER TABLE api_keys ALTER COLUMN name DROP DEFAULT`);
    await q.query(`ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz, ADD COLUMN rotated_at timestamptz`);
    // Tenants created before this hold one key each, so no two live keys share a name yet.
    await q.query(`CREATE UNIQUE INDEX api_keys_live_name ON api_keys (tenant_id, name) WHERE revoked_at IS NULL`);
    // No foreign keys: the audit outlives what it talks about.
    await q.query(`
      CREATE TABLE admin_audit (
        id bigserial PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        action text NOT NULL,
        tenant_id uuid,
        api_key_id uuid,
        admin_fingerprint text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query(`CREATE INDEX admin_audit_tenant ON admin_audit (tenant_id, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE admin_audit`);
    await q.query(`DROP INDEX api_keys_live_name`);
    await q.query(`ALTER TABLE api_keys DROP COLUMN name, DROP COLUMN last_used_at, DROP COLUMN rotated_at`);
    await q.query(`DROP INDEX tenants_list`);
    await q.query(`ALTER TABLE tenants DROP COLUMN suspended_at`);
  }
}
