import { z } from 'zod';
import type { MessagingTopology } from './messaging-topology';
import type { ConsumerDefinition, StreamDefinition } from './provisioning';

/**
 * Extract between the services (issue 21). The gateway asks for a domain's preparation with an
 * `ExtractPreparationV1` on a work queue; a scheduler runs it, with Postgres (`extract_domains`) as
 * the record, so a lost or repeated message changes nothing (the attempt number tells a stale one).
 * A ready domain's recipe is written to Postgres, then to a NATS KV bucket fetch workers read.
 */

export const extractPreparationV1 = z.object({
  v: z.literal(1),
  /** Registrable domain, as `extract_domains.domain`. */
  domain: z.string().min(1),
  /** `extract_domains.attempt` when it was asked: a message of an older attempt is dropped. */
  attempt: z.number().int().min(1),
});
export type ExtractPreparationV1 = z.infer<typeof extractPreparationV1>;

/**
 * What a Fetch request or a batch task with `extract=auto` carries: which recipe to apply. The
 * worker reads the recipe once from the KV bucket (`extractRecipeKey`) and keeps it: a version is
 * never rewritten.
 */
export const extractRecipeRefV1 = z.object({
  domain: z.string().min(1),
  version: z.number().int().min(1),
});
export type ExtractRecipeRefV1 = z.infer<typeof extractRecipeRefV1>;

/** The KV key of a recipe version (KV keys allow dots, dashes and slashes, which is all a domain has). */
export function extractRecipeKey(ref: ExtractRecipeRefV1): string {
  return `${ref.domain}/${ref.version}`;
}

/**
 * The preparations' work queue. The preparer says `working()` while it fetches and learns, so the
 * ack wait only fires for a preparer that died; then the message comes back and the preparation
 * resumes from the pages it stored. Postgres leases, not this limit, end a preparation that keeps
 * failing (`PREPARE_MAX_DELIVERIES`).
 */
export function extractMessagingDefinitions(topology: MessagingTopology): { streams: StreamDefinition[]; consumers: ConsumerDefinition[] } {
  return {
    streams: [
      {
        name: topology.streams.extractPreparations,
        subjects: [topology.subjects.extractPreparation],
        retention: 'workqueue',
        maxAgeMs: 24 * 3600_000,
        duplicateWindowMs: 120_000,
        replicas: topology.replicas,
      },
    ],
    consumers: [
      {
        stream: topology.streams.extractPreparations,
        durable: topology.consumers.extractPreparers,
        ackWaitMs: 60_000,
        maxDeliver: -1,
        maxAckPending: 256,
      },
    ],
  };
}

/**
 * Extra wait after load when `extract=auto` renders a page and the caller set no wait of its own
 * (spec §4 rule 2, "with a short wait"), in ms. The preparation renders its pages the same way, so
 * the recipe is learned on the DOM it is applied to.
 */
export const EXTRACT_RENDER_WAIT_MS = 1_000;

/** The tenant id the preparation's fetches carry: no tenant's (nothing is billed, no session is shared with a tenant's). */
export const EXTRACT_PREPARATION_TENANT = '00000000-0000-4000-8000-000000000000';
