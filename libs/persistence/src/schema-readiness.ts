import { MIGRATIONS } from './data-source';
import type { Sql } from './database';

/** TypeORM's table of applied migrations (`migrationsTableName` of `createDataSource`). */
const MIGRATIONS_TABLE = 'schema_migrations';
const UNDEFINED_TABLE = '42P01';

/** `LedgerCost1764000000110` → `1764000000110-ledger-cost`, the migration's file name. */
export function migrationLabel(name: string): string {
  const match = /^(.*?)(\d{13})$/.exec(name);
  if (!match) return name;
  const words = match[1].replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
  return `${match[2]}-${words}`;
}

/** Names of the migrations this build knows, in order (TypeORM's `name` of each). */
export function knownMigrations(): string[] {
  return MIGRATIONS.map((migration) => new migration().name ?? migration.name);
}

export interface SchemaReadinessOptions {
  /** How long an answer is reused, in ms (default 5 000): `/readyz` is probed every few seconds by every kubelet. */
  cacheMs?: number;
  /** Migrations the build knows, in order (default: `knownMigrations()`). */
  known?: string[];
  /** Default `Date.now`. */
  now?: () => number;
}

/**
 * The `schema` readiness check of every service with a database: services never migrate at start
 * (docs/operating.md, "Upgrades"), so one whose database lacks migrations this build has reports
 * not-ready, saying how many and what to run, until the migration job has run. Migrations newer than the
 * build (a rollout's older pods) are fine. While the database is unreachable, the last answer stands.
 */
export class SchemaReadiness {
  private readonly cacheMs: number;
  private readonly known: string[];
  private readonly now: () => number;
  private last?: { at: number; answer: { ok: boolean; reason?: string } };
  private checking?: Promise<{ ok: boolean; reason?: string }>;

  constructor(
    private readonly sql: Sql,
    options: SchemaReadinessOptions = {},
  ) {
    this.cacheMs = options.cacheMs ?? 5_000;
    this.known = options.known ?? knownMigrations();
    this.now = options.now ?? Date.now;
  }

  /** `{ok: true}`, or `{ok: false, reason}`; at most one query per `cacheMs`. */
  check(): Promise<{ ok: boolean; reason?: string }> {
    if (this.last && this.now() - this.last.at < this.cacheMs) return Promise.resolve(this.last.answer);
    this.checking ??= this.read().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** The migrations of this build not applied to the database, in order. */
  async pending(): Promise<string[]> {
    let applied: Set<string>;
    try {
      applied = new Set((await this.sql.query<{ name: string }>(`SELECT name FROM ${MIGRATIONS_TABLE}`)).map((row) => row.name));
    } catch (error) {
      if ((error as { code?: string })?.code !== UNDEFINED_TABLE) throw error;
      applied = new Set();
    }
    return this.known.filter((name) => !applied.has(name));
  }

  private async read(): Promise<{ ok: boolean; reason?: string }> {
    let answer: { ok: boolean; reason?: string };
    try {
      const pending = await this.pending();
      answer =
        pending.length === 0
          ? { ok: true }
          : {
              ok: false,
              reason:
                `database schema is behind: ${pending.length} migration${pending.length === 1 ? '' : 's'} pending ` +
                `(newest: ${migrationLabel(pending[pending.length - 1])}); run the migration job`,
            };
    } catch (error) {
      // The postgres check reports the outage; the schema did not change because of it.
      if (this.last) return this.last.answer;
      return { ok: false, reason: `database schema not checked yet: ${(error as Error)?.message ?? String(error)}` };
    }
    this.last = { at: this.now(), answer };
    return answer;
  }
}
