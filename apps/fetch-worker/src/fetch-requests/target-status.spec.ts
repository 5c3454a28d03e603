import { FetchRequestError } from './fetch-request.errors';
import { judgeTargetStatus } from './target-status';

const plain = { original_status: false };

function failure(status: number, options = plain): FetchRequestError {
  try {
    judgeTargetStatus(status, options);
  } catch (error) {
    return error as FetchRequestError;
  }
  throw new Error(`status ${status} was not refused`);
}

describe(judgeTargetStatus.name, () => {
  it('answers 200 for any 2xx', () => {
    expect(judgeTargetStatus(200, plain)).toEqual({ status: 200 });
    expect(judgeTargetStatus(201, plain)).toEqual({ status: 200 });
  });

  it('refuses 404 and 410 as RESP002, billed', () => {
    expect(failure(404)).toMatchObject({ code: 'RESP002', billed: true, targetStatus: 404 });
    expect(failure(410)).toMatchObject({ code: 'RESP002', billed: true, targetStatus: 410 });
  });

  it.each([400, 403, 429, 500, 503, 304])('refuses %i as RESP001, free, telling how to get it', (status) => {
    const error = failure(status);
    expect(error).toMatchObject({ code: 'RESP001', billed: false, targetStatus: status });
    expect(error.detail).toContain(`allowed_status_codes=${status}`);
  });

  it('passes any status through with original_status, 2xx included', () => {
    expect(judgeTargetStatus(500, { original_status: true })).toEqual({ status: 500 });
    expect(judgeTargetStatus(404, { original_status: true })).toEqual({ status: 404 });
    expect(judgeTargetStatus(201, { original_status: true })).toEqual({ status: 201 });
  });

  it('passes only the listed statuses through with allowed_status_codes', () => {
    const options = { original_status: false, allowed_status_codes: [403, 404] };
    expect(judgeTargetStatus(403, options)).toEqual({ status: 403 });
    expect(judgeTargetStatus(404, options)).toEqual({ status: 404 });
    expect(failure(500, options).code).toBe('RESP001');
  });
});
