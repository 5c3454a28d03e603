import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { ensureStream } from '@trawl/messaging';

export interface SubjectSlotsSettings {
  stream: string;
  /** Subjects are `<prefix>.<slot>`. */
  subjectPrefix: string;
  /** Bytes the stream keeps, all slots together: the oldest messages go first. */
  maxBytes: number;
  /** A message expires this long after it was stored. */
  ttlMs: number;
  replicas: number;
}

/**
 * A JetStream stream used as slots: one message per subject (a new one replaces the last), bounded
 * by bytes and age with limits retention, read with a get of a subject's last message, whose server
 * time says when it was stored. Created by the first write or read, with this process's bounds.
 */
export class SubjectSlots {
  private ready?: Promise<void>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly settings: SubjectSlotsSettings,
  ) {}

  async last(slot: string): Promise<{ data: Uint8Array; storedAt: number } | undefined> {
    await this.opened();
    // null when the subject holds nothing (never written, or expired).
    const stored = await this.jsm.streams.getMessage(this.settings.stream, { last_by_subj: this.subjectOf(slot) });
    return stored ? { data: stored.data, storedAt: stored.time.getTime() } : undefined;
  }

  async put(slot: string, bytes: Uint8Array): Promise<void> {
    await this.opened();
    await this.js.publish(this.subjectOf(slot), bytes);
  }

  private subjectOf(slot: string): string {
    return `${this.settings.subjectPrefix}.${slot}`;
  }

  private opened(): Promise<void> {
    this.ready ??= ensureStream(this.jsm, {
      name: this.settings.stream,
      subjects: [`${this.settings.subjectPrefix}.>`],
      retention: 'limits',
      maxBytes: this.settings.maxBytes,
      maxAgeMs: this.settings.ttlMs,
      maxMsgsPerSubject: 1,
      replicas: this.settings.replicas,
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}
