import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { fetchLimitsReclaimedV1, type FetchLimitsReclaimedV1, fetchLimitsReclaimV1, messagingTopology } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import type { Subscription } from '@nats-io/nats-core';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';

/** What the replicas gave back of a tenant's limits, summed. */
export interface Reclaimed {
  slots: number;
  requests: number;
}

/** Gives back what this replica holds idle of the tenant, written to Postgres. */
export type GiveBack = (tenantId: string) => Promise<Reclaimed>;

/** How long an ask waits for more answers after the last one, in ms: replicas answer at once, having one statement to run. */
const ANSWERS_STALL_MS = 50;
/** Longest an ask waits in all, in ms (a refusal waits this long at worst; nothing is lost without answers). */
const ASK_MAX_WAIT_MS = 500;

/**
 * The gateway replicas of a deployment asking one another, over core NATS, for what they hold idle
 * of a tenant's Fetch limits (see Allotments): a replica about to refuse a tenant (`AUTH006`,
 * `AUTH008`) asks first, every replica (itself included) gives back and answers, and the asker
 * tries once more. Best effort both ways: without answers the refusal stands, as it would have.
 */
@Injectable()
export class LimitPeers implements OnApplicationShutdown {
  private readonly subject: string;
  private subscription: Subscription | undefined;

  constructor(
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.subject = messagingTopology(config.NATS_PREFIX).subjects.fetchLimitsReclaim;
  }

  /** Answers the other replicas' asks with `giveBack`. */
  serve(giveBack: GiveBack): void {
    this.subscription = this.messaging.nc.subscribe(this.subject, {
      callback: (error, msg) => {
        if (error) return;
        let tenantId: string;
        try {
          tenantId = fetchLimitsReclaimV1.parse(msg.json()).tenant_id;
        } catch {
          return;
        }
        giveBack(tenantId).then(
          (given) => msg.respond(JSON.stringify({ v: 1, ...given } satisfies FetchLimitsReclaimedV1)),
          (failure: unknown) => this.logger.warn({ err: failure, tenant_id: tenantId }, 'could not give back idle limits'),
        );
      },
    });
  }

  /** Asks every replica to give back what it holds idle of the tenant; what they gave, summed. */
  async ask(tenantId: string): Promise<Reclaimed> {
    const total: Reclaimed = { slots: 0, requests: 0 };
    try {
      const answers = await this.messaging.nc.requestMany(this.subject, JSON.stringify({ v: 1, tenant_id: tenantId }), {
        strategy: 'stall',
        stall: ANSWERS_STALL_MS,
        maxWait: ASK_MAX_WAIT_MS,
      });
      for await (const answer of answers) {
        const given = fetchLimitsReclaimedV1.safeParse(answer.json());
        if (!given.success) continue;
        total.slots += given.data.slots;
        total.requests += given.data.requests;
      }
    } catch (error) {
      this.logger.warn({ err: error, tenant_id: tenantId }, 'could not ask the other replicas for idle limits');
    }
    return total;
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }
}
