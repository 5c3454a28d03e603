import { Inject, Injectable } from '@nestjs/common';
import { propagation, ROOT_CONTEXT, SpanKind } from '@opentelemetry/api';
import { FetchReplyV1, fetchRequestV1, MessagingTopology, workerProblemKind } from '@trawl/contracts';
import { problem, PROBLEM_CONTENT_TYPE } from '@trawl/http';
import { MessagingConnection, RpcReply, RpcRequest, StreamedRpcServer } from '@trawl/messaging';
import { Logger, withSpan } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { FetchAnswer, FetchRequestService } from './fetch-request.service';
import { sharedAbortController } from '../shared-abort';

export const FETCH_REQUEST_SERVER_SETTINGS = Symbol('FETCH_REQUEST_SERVER_SETTINGS');

export interface FetchRequestServerSettings {
  topology: MessagingTopology;
  /** Fetch requests served at once (`FETCH_CONCURRENCY`); beyond it the worker answers busy. */
  capacity: number;
  /** On shutdown, how long requests in flight may still finish, in ms, before they are cancelled. */
  drainMs: number;
  /** On shutdown, the deadline for every request to be answered, in ms (longer than `drainMs`). */
  stopDeadlineMs: number;
}

/**
 * Serves the Fetch API's streamed request/reply subject for the queue group of workers: decodes a
 * `FetchRequestV1`, has `FetchRequestService` answer it and sends the head (`FetchReplyV1` JSON)
 * and body back. A full worker answers busy and the gateway asks another one.
 */
@Injectable()
export class FetchRequestServer {
  private server?: StreamedRpcServer;
  /** Aborts the work in flight when the worker stops; every call listens to it (see sharedAbortController). */
  private readonly shutdown = sharedAbortController();
  private stopping?: Promise<void>;

  constructor(
    private readonly fetchRequests: FetchRequestService,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(FETCH_REQUEST_SERVER_SETTINGS) private readonly settings: FetchRequestServerSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** Starts serving (`WorkerRuntime` calls it). Safe to call twice. */
  start(): void {
    if (this.server || this.stopping) return;
    const { topology, capacity } = this.settings;
    this.server = new StreamedRpcServer(this.messaging.nc, {
      subject: topology.subjects.fetchRequest,
      queue: topology.consumers.fetchRequestWorkers,
      capacity,
      logger: this.logger,
    });
    this.server.start((request) => this.handle(request));
    this.logger.info({ subject: topology.subjects.fetchRequest, capacity }, 'serving fetch requests');
  }

  /**
   * Stops taking requests, lets those in flight finish for `drainMs`, then cancels the rest (they
   * answer `ERR0001`, which clients retry). Safe to call twice.
   */
  stop(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  /** Requests being served now. */
  inFlight(): number {
    return this.server?.inFlight() ?? 0;
  }

  private async drain(): Promise<void> {
    const cancelLate = setTimeout(() => this.shutdown.abort(new Error('worker shutting down')), this.settings.drainMs);
    try {
      await this.server?.stop(this.settings.stopDeadlineMs);
    } finally {
      clearTimeout(cancelLate);
      this.shutdown.abort(new Error('worker stopped'));
    }
  }

  /** One call: never throws, so the gateway always gets a head it can read. */
  async handle(request: RpcRequest): Promise<RpcReply> {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    return withSpan('fetch.request', { parent, kind: SpanKind.SERVER }, async (span) => {
      const answer = await this.answer(request);
      span.setAttributes({ 'http.response.status_code': answer.head.status, 'trawl.request_id': answer.head.request_id });
      if (answer.head.error) span.setAttribute('trawl.error_code', answer.head.error.code);
      return { head: Buffer.from(JSON.stringify(answer.head), 'utf8'), body: answer.body };
    });
  }

  private async answer(request: RpcRequest): Promise<FetchAnswer> {
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(request.payload).toString('utf8'));
    } catch {
      payload = undefined;
    }
    const parsed = fetchRequestV1.safeParse(payload);
    if (!parsed.success) {
      // A gateway and worker of different versions: our bug, answered as an internal error.
      const requestId = (payload as { request_id?: unknown } | undefined)?.request_id;
      const id = typeof requestId === 'string' && requestId !== '' ? requestId : 'unknown';
      this.logger.error({ request_id: id, issues: parsed.error.issues.slice(0, 5) }, 'fetch request payload does not match FetchRequestV1');
      return internalError(id);
    }
    return this.fetchRequests.handle(parsed.data, request.signal, this.shutdown.signal);
  }
}

function internalError(requestId: string): FetchAnswer {
  const kind = workerProblemKind('ERR0001');
  const detail = 'The service could not handle this request. Retry in 10 to 30 seconds.';
  const body = Buffer.from(
    JSON.stringify(problem(kind.status, 'ERR0001', kind.title, detail, { instance: `urn:trawl:request:${requestId}` })),
  );
  const head: FetchReplyV1 = {
    v: 1,
    request_id: requestId,
    status: kind.status,
    content_type: PROBLEM_CONTENT_TYPE,
    headers: {},
    billed_tier: null,
    error: { code: 'ERR0001', detail },
    body_bytes: body.length,
  };
  return { head, body };
}
