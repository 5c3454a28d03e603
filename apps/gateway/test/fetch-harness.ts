import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Pool } from 'pg';
import { ChargeBuffer } from '@trawl/billing';
import { FetchReplyV1, FetchRequestV1, fetchRequestV1, messagingTopology } from '@trawl/contracts';
import { internalListenerOf } from '@trawl/http';
import { RpcReply, RpcRequest, StreamedRpcServer } from '@trawl/messaging';
import type { FastifyInstance } from 'fastify';
import { createMigratedDatabase, TestDatabase, testPool, uniqueSuffix } from '@trawl/testing';
import { loadGatewayConfig } from '../src/config';
import { createGatewayApp } from '../src/gateway.app';
import { ADMIN_TOKEN } from './gateway-harness';

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Several gateway replicas over one database and one NATS prefix: what production runs. */
export interface GatewayReplicas {
  /** Each replica's public API. */
  urls: string[];
  /** Each replica's operator surface (`ADMIN_PORT`): the admin API and `/metrics`. */
  adminUrls: string[];
  prefix: string;
  sql: Pool;
  createTenant(fields?: Record<string, unknown>): Promise<{ tenant_id: string; api_key: string; [k: string]: any }>;
  patchTenant(id: string, fields: Record<string, unknown>): Promise<Response>;
  /** Writes every replica's buffered Fetch charges now (`FETCH_LEDGER_FLUSH_MS`), so the ledger can be read. */
  flushCharges(): Promise<void>;
  /** Shuts every replica down as a rollout would (SIGTERM); the database stays readable until `close`. */
  stopReplicas(): Promise<void>;
  close(): Promise<void>;
}

export async function startGatewayReplicas(count: number, env: Record<string, string> = {}): Promise<GatewayReplicas> {
  const db: TestDatabase = await createMigratedDatabase();
  const prefix = `gwf_${uniqueSuffix()}`;
  const config = loadGatewayConfig({
    DATABASE_URL: db.url,
    NATS_URL,
    NATS_PREFIX: prefix,
    ADMIN_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    EGRESS_HOST_MAP: 'shop.test=127.0.0.1',
    DATABASE_POOL_SIZE: '4',
    API_KEY_CACHE_TTL_MS: '0',
    ADMIN_PORT: '0',
    ...env,
  });
  const apps: NestFastifyApplication[] = [];
  const sql = testPool(db.url, 2);
  let stopped = false;
  const stopReplicas = async () => {
    if (stopped) return;
    stopped = true;
    for (const app of apps) await app.close().catch(() => undefined);
  };
  const close = async () => {
    await stopReplicas();
    await sql.end();
    await db.drop();
  };
  try {
    for (let i = 0; i < count; i++) {
      const app = await createGatewayApp(config);
      apps.push(app);
      await app.listen(0, '127.0.0.1');
    }
  } catch (error) {
    await close();
    throw error;
  }
  const urls = apps.map((app) => `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`);
  const adminUrls = apps.map(
    (app) => `http://127.0.0.1:${internalListenerOf(app.getHttpAdapter().getInstance() as unknown as FastifyInstance)!.port}`,
  );
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  return {
    urls,
    adminUrls,
    prefix,
    sql,
    async createTenant(fields = {}) {
      const response = await fetch(`${adminUrls[0]}/admin/v1/tenants`, { method: 'POST', headers: admin, body: JSON.stringify(fields) });
      if (response.status !== 201) throw new Error(`tenant not created: ${response.status} ${await response.text()}`);
      return (await response.json()) as any;
    },
    patchTenant(id, fields) {
      return fetch(`${adminUrls[0]}/admin/v1/tenants/${id}`, { method: 'PATCH', headers: admin, body: JSON.stringify(fields) });
    },
    async flushCharges() {
      await Promise.all(apps.map((app) => app.get(ChargeBuffer).flush()));
    },
    stopReplicas,
    close,
  };
}

/** Concurrency slots the tenant holds now (live leases), across every replica. */
export async function slotsHeld(gw: GatewayReplicas, tenantId: string): Promise<number> {
  const { rows } = await gw.sql.query(`SELECT count(*)::int AS n FROM fetch_slots WHERE tenant_id = $1 AND lease_until > now()`, [
    tenantId,
  ]);
  return rows[0].n as number;
}

/** What a test worker does with one request. */
export type WorkerBehaviour = (request: FetchRequestV1, call: RpcRequest) => Promise<RpcReply>;

/**
 * Plays the fetch worker with a real `StreamedRpcServer` on the gateway's subject: records every
 * request it gets and answers as the test says.
 */
export class TestWorker {
  readonly requests: FetchRequestV1[] = [];
  behaviour: WorkerBehaviour = async (request) => answer(request, { body: '<html>ok</html>' });
  private server?: StreamedRpcServer;

  private constructor(readonly nc: NatsConnection) {}

  static async start(prefix: string, options: { capacity?: number } = {}): Promise<TestWorker> {
    const worker = new TestWorker(await connect({ servers: NATS_URL, name: 'test-fetch-worker' }));
    const topology = messagingTopology(prefix);
    worker.server = new StreamedRpcServer(worker.nc, {
      subject: topology.subjects.fetchRequest,
      queue: topology.consumers.fetchRequestWorkers,
      capacity: options.capacity ?? 20,
      heartbeatMs: 200,
    });
    worker.server.start(async (call) => {
      const request = fetchRequestV1.parse(JSON.parse(Buffer.from(call.payload).toString('utf8')));
      worker.requests.push(request);
      return worker.behaviour(request, call);
    });
    // The subscription must reach the server before a gateway's first request.
    await worker.nc.flush();
    return worker;
  }

  inFlight(): number {
    return this.server?.inFlight() ?? 0;
  }

  async close(): Promise<void> {
    await this.server?.stop(2_000);
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

/** A worker's answer: a page at `tier` (basic by default), or an error. */
export function answer(request: FetchRequestV1, fields: Partial<FetchReplyV1> & { body?: string | Buffer } = {}): RpcReply {
  const body = Buffer.isBuffer(fields.body) ? fields.body : Buffer.from(fields.body ?? '');
  const head: FetchReplyV1 = {
    v: 1,
    request_id: request.request_id,
    status: 200,
    content_type: 'text/html; charset=utf-8',
    headers: { 'Zr-Final-Url': request.url },
    billed_tier: 'basic',
    body_bytes: body.length,
    ...fields,
  } as FetchReplyV1;
  delete (head as { body?: unknown }).body;
  return { head: Buffer.from(JSON.stringify(head)), body };
}

/** A gate a test opens when it wants a held worker call to finish. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

/** A response's JSON body, loosely typed for assertions. */
export async function json(response: Response): Promise<any> {
  return response.json();
}
