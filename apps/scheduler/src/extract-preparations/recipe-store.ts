import { Kvm, type KV } from '@nats-io/kv';
import type { JetStreamClient } from '@nats-io/jetstream';

/** Where served recipes go for the fetch workers: the KV bucket `topology.kv.extractRecipes`. */
export interface RecipeStore {
  put(key: string, recipe: unknown): Promise<void>;
  /** Every key the store holds. */
  keys(): Promise<Set<string>>;
}

export const PREPARATION_RECIPES = Symbol('PREPARATION_RECIPES');

/**
 * The recipes' NATS KV bucket, created on first use. A version is written once and never changed,
 * so one history entry is enough and workers may keep what they read for ever.
 */
export class NatsRecipeStore implements RecipeStore {
  private opening?: Promise<KV>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly bucket: string,
    private readonly replicas: number,
  ) {}

  async put(key: string, recipe: unknown): Promise<void> {
    const kv = await this.open();
    await kv.put(key, JSON.stringify(recipe));
  }

  async keys(): Promise<Set<string>> {
    const kv = await this.open();
    const keys = new Set<string>();
    for await (const key of await kv.keys()) keys.add(key);
    return keys;
  }

  private open(): Promise<KV> {
    this.opening ??= new Kvm(this.js).create(this.bucket, { history: 1, replicas: this.replicas }).catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }
}
