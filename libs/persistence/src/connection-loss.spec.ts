import { isConnectionLoss, retryWhileDatabaseDown } from './connection-loss';

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe(isConnectionLoss.name, () => {
  it.each([
    ['a refused connect', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })],
    ['a reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['a server killed under a query', new Error('Connection terminated unexpectedly')],
    ['an administrator shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['a server in recovery', pgError('57P03', 'the database system is not yet accepting connections')],
    ['a connection exception', pgError('08006')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    ['a client broken earlier', new Error('Client has encountered a connection error and is not queryable')],
    ['a wrapped one', new Error('apply failed', { cause: pgError('57P01') })],
  ])('is true for %s', (_name, error) => {
    expect(isConnectionLoss(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('23505', 'duplicate key value')],
    ['a syntax error', pgError('42601')],
    ['a serialization failure', pgError('40001')],
    ['a plain bug', new TypeError('x is undefined')],
    ['nothing', undefined],
  ])('is false for %s', (_name, error) => {
    expect(isConnectionLoss(error)).toBe(false);
  });
});

describe(retryWhileDatabaseDown.name, () => {
  it('runs the work again while the database is down, then answers what it answered', async () => {
    let calls = 0;
    const retries: number[] = [];
    const answer = await retryWhileDatabaseDown(
      async () => {
        if (++calls < 3) throw pgError('57P03');
        return 'applied';
      },
      { holdMs: 5_000, retryMs: 1, onRetry: (_e, attempt) => retries.push(attempt) },
    );
    expect(answer).toBe('applied');
    expect(retries).toEqual([1, 2]);
  });

  it('rejects at once on an error that is not an outage', async () => {
    let calls = 0;
    const failing = retryWhileDatabaseDown(
      async () => {
        calls++;
        throw pgError('23505');
      },
      { holdMs: 5_000, retryMs: 1 },
    );
    await expect(failing).rejects.toMatchObject({ code: '23505' });
    expect(calls).toBe(1);
  });

  it('rejects with the outage once holdMs has passed', async () => {
    await expect(retryWhileDatabaseDown(async () => Promise.reject(pgError('57P01')), { holdMs: 30, retryMs: 5 })).rejects.toMatchObject({
      code: '57P01',
    });
  });
});
