import { randomUUID } from 'node:crypto';
import { jobListCursor, resultsCursor, runListCursor } from './job-cursors';

describe('job cursors', () => {
  const id = randomUUID();

  it('round-trip', () => {
    expect(jobListCursor.decode(jobListCursor.encode({ createdAtMicros: '1764000000123456', jobId: id }))).toEqual({
      createdAtMicros: '1764000000123456',
      jobId: id,
    });
    expect(runListCursor.decode(runListCursor.encode({ jobId: id, runSequence: 3 }))).toEqual({ jobId: id, runSequence: 3 });
    expect(resultsCursor.decode(resultsCursor.encode({ runId: id, seq: 1_000 }))).toEqual({ runId: id, seq: 1_000 });
  });

  it('refuse one kind of cursor passed as another, and anything not handed out', () => {
    const results = resultsCursor.encode({ runId: id, seq: 1 });
    expect(jobListCursor.decode(results)).toBeUndefined();
    expect(runListCursor.decode(results)).toBeUndefined();
    expect(resultsCursor.decode('nope')).toBeUndefined();
    expect(resultsCursor.decode(Buffer.from(JSON.stringify({ k: 't', r: id, s: -1 })).toString('base64url'))).toBeUndefined();
    expect(resultsCursor.decode(Buffer.from(JSON.stringify({ k: 't', r: 'x', s: 1 })).toString('base64url'))).toBeUndefined();
  });
});
