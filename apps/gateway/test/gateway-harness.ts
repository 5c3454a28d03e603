import { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Pool } from 'pg';
import type { ContentStatus, CrawlStatus, CrawlStopReason } from '@trawl/contracts';
import { createLogger } from '@trawl/observability';
import { createMigratedDatabase, TestDatabase, testPool, uniqueSuffix } from '@trawl/testing';
import { loadGatewayConfig } from '../src/config';
import { createGatewayApp } from '../src/gateway.app';
import { isOperatorPath } from '../src/operator-surface/operator-surface';
import { internalListenerOf } from '@trawl/http';
import type { FastifyInstance } from 'fastify';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TenantCredentials {
  tenant_id: string;
  api_key: string;
  [field: string]: unknown;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** The real gateway on an ephemeral port over its own migrated database and NATS prefix. */
export interface TestGateway {
  /** The public API's port. */
  baseUrl: string;
  /** The operator surface's port (`ADMIN_PORT`): the admin API and `/metrics`. */
  adminUrl: string;
  natsPrefix: string;
  /** Direct SQL, to play the coordinator's part. */
  sql: Pool;
  request<T = any>(
    method: string,
    path: string,
    /** `via`: the port to call (default: the admin port for the admin API and `/metrics`, else the public one). */
    options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; via?: 'public' | 'admin' },
  ): Promise<ApiResponse<T>>;
  createTenant(fields?: Record<string, unknown>): Promise<TenantCredentials>;
  /** The gateway's log lines as written (pino JSON, redaction applied), when started with `captureLogs`. */
  logLines: string[];
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  /** The database to run on (default: a new migrated one); the gateway takes it over and drops it at close. */
  database?: TestDatabase;
  /** Log at `info`, as operators run it, into `logLines` instead of stdout. Default: no capture. */
  captureLogs?: boolean;
}

export async function startTestGateway(env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const db: TestDatabase = options.database ?? (await createMigratedDatabase());
  const natsPrefix = `gw_${uniqueSuffix()}`;
  const config = loadGatewayConfig({
    DATABASE_URL: db.url,
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    NATS_PREFIX: natsPrefix,
    ADMIN_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    EGRESS_HOST_MAP: 'shop.test=127.0.0.1,other.test=127.0.0.1',
    DATABASE_POOL_SIZE: '8',
    START_URL_RESOLVE_TIMEOUT_MS: '2000',
    ADMIN_PORT: '0',
    ...env,
  });
  let app: NestFastifyApplication | undefined;
  const sql = testPool(db.url, 3);
  const logLines: string[] = [];
  const logger = options.captureLogs ? createLogger('gateway', 'info', { write: (line: string) => void logLines.push(line) }) : undefined;
  try {
    app = await createGatewayApp(config, { logger });
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app?.close().catch(() => undefined);
    await sql.end();
    await db.drop();
    throw error;
  }
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const adminUrl = `http://127.0.0.1:${internalListenerOf(app.getHttpAdapter().getInstance() as unknown as FastifyInstance)!.port}`;

  const request: TestGateway['request'] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const via = options.via ?? (isOperatorPath(path.split('?')[0]) ? 'admin' : 'public');
    const response = await fetch(`${via === 'admin' ? adminUrl : baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '') && !/ndjson/.test(response.headers.get('content-type') ?? '')) {
      parsed = JSON.parse(text);
    }
    return { status: response.status, headers: response.headers, body: parsed as any, text };
  };

  return {
    baseUrl,
    adminUrl,
    natsPrefix,
    sql,
    request,
    logLines,
    async createTenant(fields = {}) {
      const response = await request('POST', '/admin/v1/tenants', {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        body: fields,
      });
      if (response.status !== 201) throw new Error(`tenant not created: ${response.status} ${response.text}`);
      return response.body as TenantCredentials;
    },
    async close() {
      await app?.close();
      await sql.end();
      await db.drop();
    },
  };
}

/** Plays the coordinator: adds results to a crawl, numbering them after its current last seq. */
export async function addResults(
  sql: Pool,
  crawlId: string,
  urls: string[],
  options: { contentStatus?: ContentStatus; html?: string } = {},
): Promise<{ id: string; seq: number; url: string }[]> {
  const added: { id: string; seq: number; url: string }[] = [];
  for (const url of urls) {
    const { rows } = await sql.query<{ id: string; item_seq: number }>(
      `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, item_seq, state, wants_links, wants_content, content_status)
       VALUES ($1, decode(md5($2), 'hex'), $2, 1,
               (SELECT coalesce(max(item_seq), 0) + 1 FROM crawl_frontier WHERE crawl_id = $1),
               'done', false, $3, $4)
       RETURNING id, item_seq`,
      [crawlId, url, options.contentStatus !== undefined, options.contentStatus ?? null],
    );
    const row = rows[0]!;
    if (options.contentStatus === 'fetched') {
      await sql.query(`INSERT INTO crawl_contents (frontier_id, crawl_id, content_type, html) VALUES ($1, $2, 'text/html', $3)`, [
        row.id,
        crawlId,
        options.html ?? `<html><body>${url}</body></html>`,
      ]);
    }
    added.push({ id: row.id, seq: row.item_seq, url });
  }
  return added;
}

/** Plays the coordinator: ends a crawl. */
export async function endCrawl(
  sql: Pool,
  crawlId: string,
  status: Extract<CrawlStatus, 'completed' | 'failed'>,
  fields: { stopReason?: CrawlStopReason; errorCode?: string } = {},
) {
  await sql.query(
    `UPDATE crawls SET status = $2, stop_reason = $3, error_code = $4, error_detail = $5, finished_at = now() WHERE id = $1`,
    [crawlId, status, fields.stopReason ?? null, fields.errorCode ?? null, fields.errorCode ? 'The start URL could not be fetched.' : null],
  );
}
