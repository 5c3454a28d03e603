import { setFlagsFromString } from 'node:v8';

/** The service settings that tune V8's heap (every service's config has them). */
export interface HeapSettings {
  HEAP_GROWTH_PERCENT: number;
  ALLOCATION_SITE_PRETENURING: boolean;
}

/**
 * Sets V8's heap flags from a service's settings, before the service allocates much. Its own entry
 * (`@trawl/service-kit/heap-settings`) so that a bench measuring a service's code in its own
 * process can run it under the same flags without loading the service kit.
 *
 * @param setFlags V8's flag setter (a parameter for unit tests only)
 */
export function applyHeapSettings(settings: HeapSettings, setFlags: (flags: string) => void = setFlagsFromString): void {
  if (settings.HEAP_GROWTH_PERCENT > 0) setFlags(`--heap-growing-percent=${settings.HEAP_GROWTH_PERCENT}`);
  if (!settings.ALLOCATION_SITE_PRETENURING) setFlags('--no-allocation-site-pretenuring');
}
