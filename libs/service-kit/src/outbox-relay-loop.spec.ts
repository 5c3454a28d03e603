import { outboxRelayLoop } from './outbox-relay-loop';

describe(outboxRelayLoop.name, () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('relays again at once while passes fill their batch, then every 200 ms', async () => {
    const relayed = [2, 2, 1, 0];
    const relay = { batchSize: 2, relayOnce: jest.fn(async () => relayed.shift() ?? 0) };
    const logger = { error: jest.fn(), warn: jest.fn() };
    const loop = outboxRelayLoop(relay, logger as never);
    loop.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(relay.relayOnce).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(199);
    expect(relay.relayOnce).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(1);
    expect(relay.relayOnce).toHaveBeenCalledTimes(4);
    await loop.stop(0);
  });

  it('backs off while passes fail', async () => {
    const relay = { batchSize: 100, relayOnce: jest.fn(() => Promise.reject(new Error('NATS unreachable'))) };
    const logger = { error: jest.fn(), warn: jest.fn() };
    const loop = outboxRelayLoop(relay, logger as never);
    loop.start();
    await jest.advanceTimersByTimeAsync(399);
    expect(relay.relayOnce).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(relay.relayOnce).toHaveBeenCalledTimes(2);
    expect(logger.error).toHaveBeenCalledWith(expect.objectContaining({ failures: 1 }), 'outbox relay pass failed');
    await loop.stop(0);
  });
});
