import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { extractRecipeKey } from '@trawl/contracts';
import { PreparationsRepository } from './preparations.repository';
import { PREPARATION_RECIPES, type RecipeStore } from './recipe-store';
import { PREPARATION_SETTINGS, type PreparationSettings } from './preparation.settings';

/** Preparations looked at per pass. */
const SWEEP_BATCH = 100;

/**
 * Keeps every preparation moving (issue 21: "a domain never stays preparing for ever"): one whose
 * lease ran out (its preparer died, or its message never arrived) gets its message again; one that
 * has been delivered too often, or is far older than a preparation can take, fails with a reason.
 * Safe on every replica at once: each resend moves the lease, and claims are guarded by it.
 */
@Injectable()
export class PreparationSweepService {
  constructor(
    private readonly preparations: PreparationsRepository,
    @Inject(PREPARATION_RECIPES) private readonly recipes: RecipeStore,
    @Inject(PREPARATION_SETTINGS) private readonly settings: PreparationSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** One pass; how many preparations it moved. */
  async sweepOnce(): Promise<number> {
    const overdue = await this.preparations.overdue(0, SWEEP_BATCH);
    // Fetching, learning and every allowed redelivery's wait, with room to spare.
    const oldestAllowed = Date.now() - (this.settings.maxFetchingMs + this.settings.leaseMs * (this.settings.maxDeliveries + 1)) * 2;
    for (const preparation of overdue) {
      const { domain, attempt } = preparation;
      if (preparation.deliveries >= this.settings.maxDeliveries || preparation.requestedAt.getTime() < oldestAllowed) {
        const failed = await this.preparations.fail(domain, attempt, 'The preparation did not finish in time; ask again later.');
        if (failed) this.logger.error({ domain, attempt, deliveries: preparation.deliveries }, 'extract preparation given up by the sweep');
        continue;
      }
      await this.preparations.resend(domain, attempt, this.settings.topology.subjects.extractPreparation, this.settings.leaseMs);
      this.logger.warn({ domain, attempt, deliveries: preparation.deliveries }, 'extract preparation overdue: message sent again');
    }
    return overdue.length;
  }

  /**
   * Writes again every served recipe the KV bucket lost (a NATS restart without its storage, a
   * bucket deleted by hand): Postgres is the record, the bucket a copy for the workers. Returns how
   * many it wrote.
   */
  async restoreRecipes(): Promise<number> {
    const held = await this.recipes.keys();
    let restored = 0;
    for (const served of await this.preparations.servedVersions()) {
      const key = extractRecipeKey(served);
      if (held.has(key)) continue;
      const recipe = await this.preparations.recipe(served.domain, served.version);
      if (recipe === undefined) continue;
      await this.recipes.put(key, recipe);
      restored += 1;
    }
    if (restored > 0) this.logger.warn({ restored }, 'extract recipes missing from the KV bucket written again');
    return restored;
  }
}
