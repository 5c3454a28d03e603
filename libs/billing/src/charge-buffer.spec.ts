import type { Sql } from '@trawl/persistence';
import { ChargeBuffer } from './charge-buffer';
import type { Charge } from './credit-ledger';

function charge(ref: string, credits = 1): Charge {
  return { tenantId: 't', credits, product: 'fetch', tier: 'basic', ref };
}

/** A fake `Sql` that records the refs of each ledger statement, failing while `failing` is set. */
function ledger() {
  const statements: string[][] = [];
  const state = { failing: false };
  const sql: Sql = {
    query: jest.fn(async () => {
      throw new Error('the ledger statement is a prepared one');
    }) as Sql['query'],
    prepared: jest.fn(async (_name: string, _text: string, params: unknown[] = []) => {
      if (state.failing) throw new Error('database down');
      statements.push(params[4] as string[]);
      return [];
    }) as Sql['prepared'],
  };
  return { sql, statements, state };
}

describe(ChargeBuffer.name, () => {
  afterEach(() => jest.useRealTimers());

  describe('add', () => {
    it('writes each charge before resolving when flushMs is 0', async () => {
      const { sql, statements } = ledger();
      await new ChargeBuffer(sql, { flushMs: 0 }).add(charge('a'));
      expect(statements).toEqual([['a']]);
    });

    it('writes the charges of one interval in one statement', async () => {
      jest.useFakeTimers();
      const { sql, statements } = ledger();
      const buffer = new ChargeBuffer(sql, { flushMs: 25 });
      await Promise.all([buffer.add(charge('a')), buffer.add(charge('b')), buffer.add(charge('free', 0))]);
      expect(statements).toEqual([]);
      await jest.advanceTimersByTimeAsync(25);
      expect(statements).toEqual([['a', 'b']]);
      expect(buffer.size).toBe(0);
    });

    it('flushes at once when maxBatch charges are waiting', async () => {
      const { sql, statements } = ledger();
      const buffer = new ChargeBuffer(sql, { flushMs: 60_000, maxBatch: 2 });
      await buffer.add(charge('a'));
      await buffer.add(charge('b'));
      await buffer.flush();
      expect(statements).toEqual([['a', 'b']]);
    });
  });

  describe('pendingCredits', () => {
    it("counts a tenant's charges until their batch is committed", async () => {
      let commit!: () => void;
      const sql: Sql = {
        query: jest.fn() as Sql['query'],
        prepared: jest.fn(() => new Promise<never[]>((resolve) => (commit = () => resolve([])))) as Sql['prepared'],
      };
      const buffer = new ChargeBuffer(sql, { flushMs: 60_000 });
      await buffer.add(charge('a', 5));
      await buffer.add({ ...charge('b', 10), tenantId: 'other' });
      expect(buffer.pendingCredits('t')).toBe(5);
      const flushed = buffer.flush();
      await Promise.resolve();
      expect(buffer.pendingCredits('t')).toBe(5);
      commit();
      await flushed;
      expect(buffer.pendingCredits('t')).toBe(0);
      expect(buffer.pendingCredits('other')).toBe(0);
    });
  });

  describe('flush', () => {
    it('keeps the charges of a failed write and writes them on a later flush', async () => {
      const { sql, statements, state } = ledger();
      const onFlushError = jest.fn();
      const buffer = new ChargeBuffer(sql, { flushMs: 60_000, onFlushError });
      await buffer.add(charge('a'));
      state.failing = true;
      await buffer.flush();
      expect(onFlushError).toHaveBeenCalledWith(expect.any(Error), 1);
      expect(buffer.size).toBe(1);
      state.failing = false;
      await buffer.flush();
      expect(statements).toEqual([['a']]);
      await buffer.close();
    });
  });

  describe('close', () => {
    it('writes what is buffered, then writes later charges at once', async () => {
      const { sql, statements } = ledger();
      const buffer = new ChargeBuffer(sql, { flushMs: 60_000 });
      await buffer.add(charge('a'));
      await buffer.close();
      expect(statements).toEqual([['a']]);
      await buffer.add(charge('b'));
      expect(statements).toEqual([['a'], ['b']]);
      await buffer.close();
    });

    it('rejects when what is buffered cannot be written', async () => {
      const { sql, state } = ledger();
      const buffer = new ChargeBuffer(sql, { flushMs: 60_000 });
      await buffer.add(charge('a'));
      state.failing = true;
      await expect(buffer.close()).rejects.toThrow('database down');
      expect(buffer.size).toBe(1);
    });
  });
});
