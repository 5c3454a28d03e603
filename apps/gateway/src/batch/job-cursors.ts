import { decodeCursorToken, encodeCursorToken, isUuid } from '@trawl/http';
/**
 * Opaque cursors of the Batch API: base64url of a small JSON object, like the Crawl API's. They hold
 * no secret (every read is scoped to the caller's tenant); opacity keeps callers from building them.
 */

const MAX_INT = 2_147_483_647;

/** Position in a tenant's job list (newest first): the last job returned. */
export interface JobListCursor {
  createdAtMicros: string;
  jobId: string;
}

/** Position in a job's run list (newest first): the last `run_sequence` returned. */
export interface RunListCursor {
  jobId: string;
  runSequence: number;
}

/** Position in a job's schedule firings (newest first): the last `due_at` returned. */
export interface FiringListCursor {
  jobId: string;
  dueAtMicros: string;
}

/** Position in one run's results: the last task `seq` read. The run is pinned, so paging never jumps runs. */
export interface ResultsCursor {
  runId: string;
  seq: number;
}

export const jobListCursor = {
  encode: (c: JobListCursor) => encodeCursorToken({ k: 'j', t: c.createdAtMicros, c: c.jobId }),
  decode(token: string): JobListCursor | undefined {
    const d = decodeCursorToken(token);
    if (d?.k !== 'j' || typeof d.c !== 'string' || !isUuid(d.c) || typeof d.t !== 'string' || !/^\d{1,18}$/.test(d.t)) return undefined;
    return { createdAtMicros: d.t, jobId: d.c };
  },
};

export const runListCursor = {
  encode: (c: RunListCursor) => encodeCursorToken({ k: 'n', j: c.jobId, s: c.runSequence }),
  decode(token: string): RunListCursor | undefined {
    const d = decodeCursorToken(token);
    if (d?.k !== 'n' || typeof d.j !== 'string' || !isUuid(d.j) || !isSeq(d.s)) return undefined;
    return { jobId: d.j, runSequence: d.s };
  },
};

export const firingListCursor = {
  encode: (c: FiringListCursor) => encodeCursorToken({ k: 'f', j: c.jobId, t: c.dueAtMicros }),
  decode(token: string): FiringListCursor | undefined {
    const d = decodeCursorToken(token);
    if (d?.k !== 'f' || typeof d.j !== 'string' || !isUuid(d.j) || typeof d.t !== 'string' || !/^-?\d{1,18}$/.test(d.t)) return undefined;
    return { jobId: d.j, dueAtMicros: d.t };
  },
};

export const resultsCursor = {
  encode: (c: ResultsCursor) => encodeCursorToken({ k: 't', r: c.runId, s: c.seq }),
  decode(token: string): ResultsCursor | undefined {
    const d = decodeCursorToken(token);
    if (d?.k !== 't' || typeof d.r !== 'string' || !isUuid(d.r) || !isSeq(d.s)) return undefined;
    return { runId: d.r, seq: d.s };
  },
};

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_INT;
}
