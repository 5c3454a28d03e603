import { isClientError } from './client-address-health';

describe('isClientError', () => {
  it.each([
    [400, false, true],
    [401, false, true],
    [402, false, true],
    [403, false, true],
    [405, false, true],
    [429, false, false],
    [200, false, false],
    [500, false, false],
    [503, false, false],
    [404, true, false],
    [422, true, false],
  ])('status %i (answered from the target: %p) is an error of the client: %p', (status, fromTarget, expected) => {
    expect(isClientError(status, fromTarget)).toBe(expected);
  });
});
