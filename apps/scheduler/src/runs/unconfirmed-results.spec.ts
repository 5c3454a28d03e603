import pino from 'pino';
import type { Database } from '@trawl/persistence';
import type { RunExecutionRepository } from './run-execution.repository';
import type { TaskClaim } from './task-result';
import { UnconfirmedResults } from './unconfirmed-results';

const lost = () => Object.assign(new Error('terminating connection due to unexpected postmaster exit'), { code: '57P01' });

function setup(release: (claims: TaskClaim[]) => Promise<number> = async (claims) => claims.length) {
  let onLoss: (error: Error) => void = () => undefined;
  const released: TaskClaim[][] = [];
  const db = { onConnectionLoss: (listener: (error: Error) => void) => (onLoss = listener) } as unknown as Database;
  const runs = {
    release: async (_sql: unknown, claims: TaskClaim[]) => {
      released.push(claims);
      return release(claims);
    },
  } as unknown as RunExecutionRepository;
  const unconfirmed = new UnconfirmedResults(db, runs, pino({ level: 'silent' }));
  return { unconfirmed, released, idleConnectionLost: () => onLoss(lost()) };
}

const claim = (seq: number): TaskClaim => ({ runId: '5d1f0a2e-3b4c-4d5e-8f60-718293a4b5c6', seq, attempt: 1 });

describe(UnconfirmedResults.name, () => {
  it('puts back nothing while the database never went away', async () => {
    const { unconfirmed, released } = setup();
    unconfirmed.applied([claim(1)]);
    expect(await unconfirmed.recheck()).toBe(0);
    expect(released).toEqual([]);
  });

  it('rechecks the results of the last seconds once an outage is seen, once', async () => {
    const { unconfirmed, released } = setup();
    unconfirmed.applied([claim(1)], 1_000);
    unconfirmed.applied([claim(2), claim(3)], 5_500);
    unconfirmed.noticed(lost(), 6_500);
    expect(await unconfirmed.recheck()).toBe(2);
    // Applied more than 5 s before the outage: on disk long since.
    expect(released).toEqual([[claim(2), claim(3)]]);
    expect(await unconfirmed.recheck()).toBe(0);
  });

  it('sees an outage in idle connections dying, and ignores errors that are not one', async () => {
    const { unconfirmed, released, idleConnectionLost } = setup();
    unconfirmed.applied([claim(1)]);
    unconfirmed.noticed(Object.assign(new Error('duplicate key'), { code: '23505' }));
    expect(await unconfirmed.recheck()).toBe(0);
    idleConnectionLost();
    expect(await unconfirmed.recheck()).toBe(1);
    expect(released).toEqual([[claim(1)]]);
  });

  it('keeps the suspects while the database is still away', async () => {
    let down = true;
    const { unconfirmed } = setup(async (claims) => {
      if (down) throw lost();
      return claims.length;
    });
    unconfirmed.applied([claim(1)]);
    unconfirmed.noticed(lost());
    await expect(unconfirmed.recheck()).rejects.toMatchObject({ code: '57P01' });
    down = false;
    expect(await unconfirmed.recheck()).toBe(1);
  });
});
