import { machineBusySeconds, processCpuSeconds, processMemory } from './process-stats';

/** One resident-memory reading of a measured process. */
export interface MemorySample {
  /** Milliseconds since the meter started. */
  atMs: number;
  rssBytes: number;
}

/** What the meter saw of one process over a measured crawl. */
export interface ProcessUsage {
  pid: number;
  /** Highest VmRSS among the samples taken during the crawl. */
  sampledPeakRssBytes: number;
  /** VmHWM at the end: the peak since the process started (boot and warm-up included). */
  peakRssBytes: number;
  /** CPU seconds (user + system) used during the crawl. */
  cpuSeconds: number;
  samples: MemorySample[];
}

interface Tracked {
  pid: number;
  cpuAtStart: number;
  samples: MemorySample[];
  peakRssBytes: number;
}

/**
 * Samples the resident memory of named processes every `intervalMs` (default 250 ms) and measures
 * their CPU time between {@link ResourceMeter.start} and {@link ResourceMeter.stop}.
 */
export class ResourceMeter {
  private readonly tracked = new Map<string, Tracked>();
  private timer?: NodeJS.Timeout;
  private startedAt = 0;

  constructor(
    private readonly processes: Record<string, number>,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.startedAt = Date.now();
    for (const [name, pid] of Object.entries(this.processes)) {
      this.tracked.set(name, { pid, cpuAtStart: processCpuSeconds(pid), samples: [], peakRssBytes: 0 });
    }
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  /** Current VmRSS of each process, as sampled now (for progress marks). */
  current(): Record<string, number> {
    const now: Record<string, number> = {};
    for (const [name, { pid }] of this.tracked) now[name] = processMemory(pid)?.rssBytes ?? 0;
    return now;
  }

  /** Stops sampling; reads VmHWM and CPU time while the processes still run. */
  stop(): Record<string, ProcessUsage> {
    clearInterval(this.timer);
    this.sample();
    const usage: Record<string, ProcessUsage> = {};
    for (const [name, tracked] of this.tracked) {
      usage[name] = {
        pid: tracked.pid,
        sampledPeakRssBytes: Math.max(0, ...tracked.samples.map((s) => s.rssBytes)),
        peakRssBytes: Math.max(tracked.peakRssBytes, processMemory(tracked.pid)?.peakRssBytes ?? 0),
        cpuSeconds: processCpuSeconds(tracked.pid) - tracked.cpuAtStart,
        samples: tracked.samples,
      };
    }
    return usage;
  }

  private sample(): void {
    const atMs = Date.now() - this.startedAt;
    for (const tracked of this.tracked.values()) {
      const memory = processMemory(tracked.pid);
      if (!memory) continue;
      tracked.samples.push({ atMs, rssBytes: memory.rssBytes });
      tracked.peakRssBytes = Math.max(tracked.peakRssBytes, memory.peakRssBytes);
    }
  }
}

/** CPU seconds of a changing set of processes (Postgres backends, NATS) between two readings. */
export class GroupCpuMeter {
  private atStart = new Map<number, number>();

  constructor(private readonly members: () => number[]) {}

  start(): void {
    this.atStart = new Map(this.members().map((pid) => [pid, processCpuSeconds(pid)]));
  }

  /** CPU seconds since start; processes that exited in between are not counted. */
  stop(): number {
    return this.members().reduce((total, pid) => total + processCpuSeconds(pid) - (this.atStart.get(pid) ?? 0), 0);
  }
}

/**
 * Busy CPU seconds of the whole machine between start and stop. Set beside the measured processes'
 * CPU it shows how much of the machine something else took (this machine is shared).
 */
export class MachineCpuMeter {
  private atStart = 0;

  start(): void {
    this.atStart = machineBusySeconds();
  }

  stop(): number {
    return machineBusySeconds() - this.atStart;
  }
}
