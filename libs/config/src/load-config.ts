import { z } from 'zod';

/** Raised at boot when the environment does not satisfy an app's config schema. */
export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n  - ${issues.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses an app's configuration once, from the environment, failing fast with a message that names
 * every bad variable. Apps call this in main.ts and pass the typed result down; nothing else reads
 * `process.env`.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined> = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return parsed.data;
}
