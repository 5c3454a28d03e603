import { groupPssBytes, processesNamed } from './process-stats';
import { ResourceMeter } from './resource-meter';

/** Issue 32, target 4: a service's peak memory over the long work within 15 % of its memory at a quarter of it. */
export const FLAT_MEMORY_GROWTH = 0.15;

const MARKS = [25, 50, 75] as const;
const MIB = 1024 * 1024;

/** Memory of each process at one share of the work, in bytes. */
interface Mark {
  percent: number;
  atMs: number;
  bytes: Record<string, number>;
}

/**
 * Resident memory of named processes as a piece of work progresses: VmRSS sampled every 250 ms and
 * read at 25, 50, 75 and 100 % of the work, Postgres as the PSS of all its processes (the server is
 * shared, and its shared buffers would count once per backend in an RSS sum). Call
 * {@link MemoryByProgress.progress} whenever the work's done count is known.
 */
export class MemoryByProgress {
  private readonly meter: ResourceMeter;
  private readonly marks: Mark[] = [];
  private readonly pending = [...MARKS];
  private startedAt = 0;

  constructor(
    processes: Record<string, number>,
    private readonly total: number,
  ) {
    this.meter = new ResourceMeter(processes);
  }

  start(): void {
    this.startedAt = performance.now();
    this.meter.start();
  }

  /** Records the marks `done` (of the total) has passed. */
  progress(done: number): void {
    while (this.pending.length > 0 && done >= Math.ceil((this.total * this.pending[0]) / 100)) this.mark(this.pending.shift()!);
  }

  /** Stops sampling, marks 100 %, and describes what was seen. */
  stop(): MemoryReport {
    this.mark(100);
    const usage = this.meter.stop();
    const quarter = this.marks.find((m) => m.percent === 25);
    const roles = Object.keys(this.marks[0]?.bytes ?? {});
    const growth: Record<string, number | undefined> = {};
    for (const role of roles) {
      const sampled = usage[role]?.samples.filter((s) => quarter && s.atMs >= quarter.atMs).map((s) => s.rssBytes) ?? [];
      const later = this.marks.filter((m) => m.percent > 25).map((m) => m.bytes[role] ?? 0);
      growth[role] = growthAfterQuarter(quarter?.bytes[role], [...later, ...sampled]);
    }
    return { marks: this.marks, growth };
  }

  private mark(percent: number): void {
    this.marks.push({
      percent,
      atMs: performance.now() - this.startedAt,
      bytes: { ...this.meter.current(), postgres: groupPssBytes(processesNamed('postgres')) },
    });
  }
}

export interface MemoryReport {
  marks: Mark[];
  /** Per process: the peak after a quarter of the work against the memory then, minus one. */
  growth: Record<string, number | undefined>;
}

/** The highest of `later` readings against the memory at a quarter of the work, minus one; undefined without the quarter's. */
export function growthAfterQuarter(atQuarter: number | undefined, later: number[]): number | undefined {
  return atQuarter ? Math.max(...later) / atQuarter - 1 : undefined;
}

/** A growth as the tables print it: `+3 %`, `—` when unknown. */
export function formatGrowth(growth: number | undefined): string {
  return growth === undefined ? '—' : `${growth >= 0 ? '+' : ''}${(100 * growth).toFixed(0)} %`;
}

/** Issue 32's target 4 over `work`: every process's peak within {@link FLAT_MEMORY_GROWTH} of its memory at 25 %. */
export function flatMemoryVerdict(growth: Record<string, number | undefined>, work: string): string {
  const growing = Object.entries(growth)
    .filter(([, value]) => (value ?? 0) > FLAT_MEMORY_GROWTH)
    .map(([role]) => role);
  return (
    `Every Trawl service flat over ${work} (peak within ${100 * FLAT_MEMORY_GROWTH} % of the memory at 25 %): ` +
    (growing.length === 0 ? 'MET' : `NOT MET (${growing.join(', ')})`)
  );
}

/** The table of a {@link MemoryReport}, and the verdict when `verdictFor` names the work it is judged on. */
export function formatMemoryByProgress(report: MemoryReport, verdictFor?: string): string {
  const rows = Object.entries(report.growth).map(([role, growth]) => {
    const at = (percent: number) => report.marks.find((m) => m.percent === percent)?.bytes[role];
    const cells = [25, 50, 75, 100].map((percent) => {
      const bytes = at(percent);
      return bytes === undefined ? '—' : `${(bytes / MIB).toFixed(0)} MiB`;
    });
    return `| ${role} | ${cells.join(' | ')} | ${formatGrowth(growth)} |`;
  });
  const lines = [
    'Resident memory as the work progresses (Postgres: PSS of all its processes):',
    '| process | 25 % | 50 % | 75 % | 100 % | peak vs 25 % |',
    '|---------|------|------|------|-------|--------------|',
    ...rows,
  ];
  if (verdictFor) lines.push(flatMemoryVerdict(report.growth, verdictFor));
  return lines.join('\n');
}
