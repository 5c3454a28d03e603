import { Kvm, type KV } from '@nats-io/kv';
import type { JetStreamClient } from '@nats-io/jetstream';
import { extractRecipeKey, type ExtractRecipeRefV1 } from '@trawl/contracts';
import { parseRecipe, type Recipe } from '@trawl/extraction';
import { FetchRequestError } from './fetch-request.errors';

/** Recipes a worker keeps in memory: a few hundred domains is plenty for one worker's traffic. */
const MAX_CACHED_RECIPES = 500;

/** Where a worker gets the recipe an `extract=auto` request names. */
export interface RecipeSource {
  /** @throws FetchRequestError `ERR0001` when the recipe cannot be read (the request may be retried). */
  get(ref: ExtractRecipeRefV1): Promise<Recipe>;
}

/** A worker wired without recipes (tests of other features): every `extract=auto` is `ERR0001`. */
export const NO_RECIPES: RecipeSource = {
  get: (ref) => Promise.reject(new FetchRequestError('ERR0001', `No recipe store: the recipe of ${ref.domain} cannot be read.`)),
};

/**
 * Recipes from the KV bucket the scheduler's preparations write (`topology.kv.extractRecipes`).
 * A version never changes once written, so what was read is kept (least recently used dropped
 * first) and concurrent requests for one version read it once. The bucket is opened on first use.
 */
export class KvRecipeSource implements RecipeSource {
  private readonly cache = new Map<string, Promise<Recipe>>();
  private opening?: Promise<KV>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly bucket: string,
    private readonly replicas: number,
  ) {}

  get(ref: ExtractRecipeRefV1): Promise<Recipe> {
    const key = extractRecipeKey(ref);
    const cached = this.cache.get(key);
    if (cached) {
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    const reading = this.read(key).catch((error: unknown) => {
      this.cache.delete(key);
      throw error;
    });
    this.cache.set(key, reading);
    while (this.cache.size > MAX_CACHED_RECIPES) this.cache.delete(this.cache.keys().next().value as string);
    return reading;
  }

  private async read(key: string): Promise<Recipe> {
    let entry;
    try {
      entry = await (await this.open()).get(key);
    } catch (error) {
      throw new FetchRequestError('ERR0001', 'The extraction recipe could not be read.', { cause: error });
    }
    if (!entry || entry.operation !== 'PUT') {
      throw new FetchRequestError('ERR0001', `The extraction recipe ${key} is missing from the recipe store.`);
    }
    return parseRecipe(entry.json());
  }

  private open(): Promise<KV> {
    // `create` opens the bucket when it exists, with the same settings the preparer creates it with.
    this.opening ??= new Kvm(this.js).create(this.bucket, { history: 1, replicas: this.replicas }).catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }
}
