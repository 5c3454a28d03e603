import { MessagingError, MessagingErrorCode } from '@trawl/messaging';
import { FetchErrorCode } from './fetch.errors';
import { workerFailure } from './worker-failure';

const failed = (code: MessagingErrorCode) => new MessagingError(code, 'x');

describe(workerFailure.name, () => {
  it.each([
    [MessagingErrorCode.RpcNoResponders, FetchErrorCode.NoCapacity],
    [MessagingErrorCode.RpcBusy, FetchErrorCode.NoCapacity],
    [MessagingErrorCode.RpcWorkerLost, FetchErrorCode.WorkerLost],
    [MessagingErrorCode.RpcRemoteFailure, FetchErrorCode.WorkerLost],
    [MessagingErrorCode.RpcCancelled, FetchErrorCode.Cancelled],
  ])('maps %s to %s', (code, expected) => {
    expect(workerFailure(failed(code), undefined).code).toBe(expected);
  });

  it('answers CTX0002 when the gateway gave up at the deadline, whatever the RPC said', () => {
    expect(workerFailure(failed(MessagingErrorCode.RpcCancelled), 'deadline').code).toBe(FetchErrorCode.DeadlineExceeded);
  });

  it('answers CTX0001 when the client closed the connection', () => {
    expect(workerFailure(failed(MessagingErrorCode.RpcWorkerLost), 'client_closed').code).toBe(FetchErrorCode.Cancelled);
  });

  it('jitters Retry-After of RESP009 from 1 to 5 seconds', () => {
    const at = (r: number) => workerFailure(failed(MessagingErrorCode.RpcBusy), undefined, () => r).headers['retry-after'];
    expect(at(0)).toBe('1');
    expect(at(0.999)).toBe('5');
  });

  it('treats an unknown error as a retryable ERR0001', () => {
    expect(workerFailure(new Error('boom'), undefined).code).toBe(FetchErrorCode.WorkerLost);
  });
});
