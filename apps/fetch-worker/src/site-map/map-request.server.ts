import { Inject, Injectable } from '@nestjs/common';
import { propagation, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { type MapFailureCode, type MapReplyV1, mapRequestV1, type MessagingTopology } from '@trawl/contracts';
import { problem } from '@trawl/http';
import { MessagingConnection, RpcReply, RpcRequest, StreamedRpcServer } from '@trawl/messaging';
import { Logger, withSpan } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { sharedAbortController } from '../shared-abort';
import { SiteMapper } from './site-mapper';

export const MAP_REQUEST_SERVER_SETTINGS = Symbol('MAP_REQUEST_SERVER_SETTINGS');

export interface MapRequestServerSettings {
  topology: MessagingTopology;
  /** Maps served at once (`MAP_CONCURRENCY`); beyond it the worker answers busy and the gateway asks another. */
  capacity: number;
  /** On shutdown, the deadline for every map to be answered, in ms; those still running are cut short. */
  stopDeadlineMs: number;
}

/** Status and title of each way a map fails, as the public API answers it. */
const FAILURES: Record<MapFailureCode, { status: number; title: string }> = {
  invalid_url: { status: 422, title: 'Invalid URL' },
  site_unreachable: { status: 422, title: 'Site unreachable' },
  internal_error: { status: 500, title: 'Internal error' },
};

/**
 * Serves the Map API's streamed request/reply subject for the queue group of workers: decodes a
 * `MapRequestV1`, has `SiteMapper` map the site and sends a `MapReplyV1` head and the answer body
 * (the `MapResult` JSON, or a problem) back.
 */
@Injectable()
export class MapRequestServer {
  private server?: StreamedRpcServer;
  private readonly shutdown = sharedAbortController();
  private stopping?: Promise<void>;

  constructor(
    private readonly mapper: SiteMapper,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(MAP_REQUEST_SERVER_SETTINGS) private readonly settings: MapRequestServerSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts serving. Safe to call twice. */
  start(): void {
    if (this.server || this.stopping) return;
    const { topology, capacity } = this.settings;
    this.server = new StreamedRpcServer(this.messaging.nc, {
      subject: topology.subjects.mapRequest,
      queue: topology.consumers.mapRequestWorkers,
      capacity,
      logger: this.logger,
    });
    this.server.start((request) => this.handle(request));
    this.logger.info({ subject: topology.subjects.mapRequest, capacity }, 'serving map requests');
  }

  /** Stops taking maps; those running are cut short halfway to the deadline and answer what they found. Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const cutShort = setTimeout(() => this.shutdown.abort(new Error('worker shutting down')), this.settings.stopDeadlineMs / 2);
      try {
        await this.server?.stop(this.settings.stopDeadlineMs);
      } finally {
        clearTimeout(cutShort);
        this.shutdown.abort(new Error('worker stopped'));
      }
    })();
    return this.stopping;
  }

  /** One call: never throws, so the gateway always gets a head it can read. */
  async handle(request: RpcRequest): Promise<RpcReply> {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    return withSpan('map.request', { parent, kind: SpanKind.SERVER }, async (span) => {
      const { head, body } = await this.answer(request);
      span.setAttributes({ 'http.response.status_code': head.status, 'trawl.request_id': head.request_id, 'trawl.map.links': head.links });
      if (head.error) span.setAttribute('trawl.error_code', head.error.code);
      return { head: Buffer.from(JSON.stringify(head), 'utf8'), body };
    });
  }

  private async answer(request: RpcRequest): Promise<{ head: MapReplyV1; body: Buffer }> {
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(request.payload).toString('utf8'));
    } catch {
      payload = undefined;
    }
    const parsed = mapRequestV1.safeParse(payload);
    if (!parsed.success) {
      // A gateway and worker of different versions: our bug, answered as an internal error.
      const requestId = (payload as { request_id?: unknown } | undefined)?.request_id;
      const id = typeof requestId === 'string' && requestId !== '' ? requestId : 'unknown';
      this.logger.error({ request_id: id, issues: parsed.error.issues.slice(0, 5) }, 'map request payload does not match MapRequestV1');
      return failure(id, 'internal_error', 'The service could not map this site. Retry in 10 to 30 seconds.');
    }
    const mapRequest = parsed.data;
    const signal = request.signal;
    try {
      // A worker shutting down answers what its maps found so far, as at their deadline.
      const outcome = await this.mapper.map(mapRequest, signal, this.shutdown.signal);
      if (!outcome.ok) return failure(mapRequest.request_id, outcome.code, outcome.detail);
      const body = Buffer.from(JSON.stringify(outcome.result), 'utf8');
      const head: MapReplyV1 = { v: 1, request_id: mapRequest.request_id, status: 200, links: outcome.result.links.length };
      if (mapRequest.respect_robots) head.robots_disallowed = outcome.robotsDisallowed;
      return { head, body };
    } catch (error) {
      if (signal.aborted) {
        return failure(mapRequest.request_id, 'internal_error', 'The map was cancelled. Retry in 10 to 30 seconds.');
      }
      this.logger.error({ err: error, request_id: mapRequest.request_id }, 'map failed');
      return failure(mapRequest.request_id, 'internal_error', 'The service could not map this site. Retry in 10 to 30 seconds.');
    }
  }
}

function failure(requestId: string, code: MapFailureCode, detail: string): { head: MapReplyV1; body: Buffer } {
  const { status, title } = FAILURES[code];
  const body = Buffer.from(JSON.stringify(problem(status, code, title, detail, { instance: `urn:trawl:request:${requestId}` })), 'utf8');
  return { head: { v: 1, request_id: requestId, status, links: 0, error: { code, detail } }, body };
}
