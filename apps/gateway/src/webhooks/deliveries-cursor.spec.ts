import { decodeDeliveriesCursor, encodeDeliveriesCursor } from './deliveries-cursor';

describe('deliveries cursor', () => {
  const position = { createdAtMicros: '1795000000123456', id: '6f1c1e4e-8a0c-4d59-9f6a-1b2c3d4e5f60' };

  it('round-trips for the job it was issued for', () => {
    expect(decodeDeliveriesCursor('job-1', encodeDeliveriesCursor('job-1', position))).toEqual(position);
  });

  it('is refused for another job, or when it is not a cursor', () => {
    expect(decodeDeliveriesCursor('job-2', encodeDeliveriesCursor('job-1', position))).toBeUndefined();
    expect(decodeDeliveriesCursor('job-1', 'not-a-cursor')).toBeUndefined();
    expect(decodeDeliveriesCursor('job-1', Buffer.from('{"j":"job-1","t":"x","i":"y"}').toString('base64url'))).toBeUndefined();
  });
});
