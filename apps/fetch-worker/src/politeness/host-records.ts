import { JetStreamApiCodes, JetStreamApiError, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { EMPTY_HOST_STATE, type HostState } from './host-state';

/** A host's shared record and the revision to compare-and-set it against (0: none yet). */
export interface HostRecord {
  state: HostState;
  revision: number;
}

/** Where the hosts' shared records live: one per host, replaced with compare-and-set. */
export interface HostRecords {
  read(host: string): Promise<HostRecord>;
  /** The new revision, or undefined when another writer changed the record since `revision`. */
  write(host: string, state: HostState, revision: number): Promise<number | undefined>;
}

/**
 * A record outlives every permit and pause in it (each at most minutes); an idle host's record
 * then expires with the bucket's max age, so the bucket holds only hosts loaded in the last hour.
 */
const RECORD_TTL_MS = 3600_000;

/** Host records in a NATS KV bucket (history 1): every worker replica reads and writes the same ones. */
export class NatsHostRecords implements HostRecords {
  private constructor(private readonly kv: KV) {}

  /** Opens (creating if absent) bucket `bucket`, with `replicas` copies on a NATS cluster. */
  static async open(js: JetStreamClient, bucket: string, replicas = 1): Promise<NatsHostRecords> {
    return new NatsHostRecords(await new Kvm(js).create(bucket, { ttl: RECORD_TTL_MS, history: 1, replicas }));
  }

  async read(host: string): Promise<HostRecord> {
    const entry = await this.kv.get(keyOf(host));
    if (!entry || entry.operation !== 'PUT') return { state: EMPTY_HOST_STATE, revision: entry?.revision ?? 0 };
    return { state: parsed(entry.json<Partial<HostState>>()), revision: entry.revision };
  }

  async write(host: string, state: HostState, revision: number): Promise<number | undefined> {
    const value = JSON.stringify(state);
    try {
      // create() also takes over a deleted or purged key.
      return revision === 0 ? await this.kv.create(keyOf(host), value) : await this.kv.update(keyOf(host), value, revision);
    } catch (error) {
      if (isConflict(error)) return undefined;
      throw error;
    }
  }
}

/** `h.<host name>`, with what KV keys cannot hold (`:` of an IPv6 address, `[`, `]`) as `_`. */
export function keyOf(host: string): string {
  const name = host
    .toLowerCase()
    .replace(/^\.+|\.+$/g, '')
    .replace(/[^-\w.]/g, '_');
  return `h.${name || '_'}`;
}

function isConflict(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

/** A record written by another version may lack a field; what it lacks is "nothing there". */
function parsed(value: Partial<HostState>): HostState {
  return {
    permits: value.permits && typeof value.permits === 'object' ? value.permits : {},
    next: Number(value.next) || 0,
    pausedUntil: Number(value.pausedUntil) || 0,
    strikes: Number(value.strikes) || 0,
  };
}
