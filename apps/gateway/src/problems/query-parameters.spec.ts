import { assertKnownQueryParameters, booleanQueryParameter, intQueryParameter } from './query-parameters';
import { RequestErrorCode } from './request.errors';

describe('query parameters', () => {
  describe(assertKnownQueryParameters.name, () => {
    it('accepts apikey on every endpoint', () => {
      expect(() => assertKnownQueryParameters({ apikey: 'k', limit: '2' }, ['limit'])).not.toThrow();
    });

    it('refuses apikey where keys are not the authentication', () => {
      expect(() => assertKnownQueryParameters({ apikey: 'k' }, [], { apiKeyParameter: false })).toThrow(
        expect.objectContaining({ code: RequestErrorCode.UnknownParameter }),
      );
    });

    it('names the first unknown parameter', () => {
      expect(() => assertKnownQueryParameters({ limit: '2', page: '3' }, ['limit'])).toThrow(
        expect.objectContaining({ code: RequestErrorCode.UnknownParameter, extensions: { parameter: 'page' } }),
      );
    });
  });

  describe(intQueryParameter.name, () => {
    const bounds = { min: 1, max: 100, fallback: 20 };

    it('gives the default when absent and the value when in bounds', () => {
      expect(intQueryParameter({}, 'limit', bounds)).toBe(20);
      expect(intQueryParameter({ limit: '1' }, 'limit', bounds)).toBe(1);
      expect(intQueryParameter({ limit: '100' }, 'limit', bounds)).toBe(100);
    });

    it.each(['0', '101', '-1', '1.5', 'abc', '', '1e2', ' 5'])('refuses %p as invalid_request', (value) => {
      expect(() => intQueryParameter({ limit: value }, 'limit', bounds)).toThrow(
        expect.objectContaining({ code: RequestErrorCode.InvalidRequest }),
      );
    });

    it('refuses a repeated parameter', () => {
      expect(() => intQueryParameter({ limit: ['1', '2'] }, 'limit', bounds)).toThrow(
        expect.objectContaining({ code: RequestErrorCode.InvalidRequest }),
      );
    });
  });

  describe(booleanQueryParameter.name, () => {
    it('reads true and false and refuses anything else', () => {
      expect(booleanQueryParameter({ download: 'true' }, 'download', false)).toBe(true);
      expect(booleanQueryParameter({ download: 'false' }, 'download', true)).toBe(false);
      expect(booleanQueryParameter({}, 'download', false)).toBe(false);
      expect(() => booleanQueryParameter({ download: 'yes' }, 'download', false)).toThrow(
        expect.objectContaining({ code: RequestErrorCode.InvalidRequest }),
      );
    });
  });
});
