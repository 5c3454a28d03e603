import { Gauge, type Registry } from 'prom-client';
import type { BrowserPool } from './browser-pool';

/**
 * The browser pool's counters on /metrics, read at scrape time: pages rendering, waiting and parked
 * now, and since start the browsers launched, crashed, retired and failed to launch and the requests served by a
 * reused page (reused / rendering requests tells whether page reuse pays on this traffic).
 */
export function registerBrowserPoolMetrics(registry: Registry, pool: BrowserPool): void {
  new Gauge({
    name: 'trawl_worker_browser_pages',
    help: 'Browser pages by state: rendering (active), waiting for a slot, parked for reuse',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const stats = pool.stats();
      this.set({ state: 'active' }, stats.active);
      this.set({ state: 'waiting' }, stats.waiting);
      this.set({ state: 'parked' }, stats.parked);
    },
  });
  new Gauge({
    name: 'trawl_worker_browser_events',
    help: 'Since the worker started: browsers launched, crashed, retired, failed to launch (launch_failed); requests served by a reused page; used pages closed because they could not be wiped; reused pages found unresponsive (their requests retried)',
    labelNames: ['event'],
    registers: [registry],
    collect() {
      const stats = pool.stats();
      for (const event of ['launched', 'crashed', 'retired', 'reused', 'unwipeable', 'unresponsive'] as const)
        this.set({ event }, stats[event]);
      this.set({ event: 'launch_failed' }, stats.launchFailed);
    },
  });
}
