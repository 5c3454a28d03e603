import { ForbiddenDomains } from './forbidden-domains';

describe(ForbiddenDomains.name, () => {
  describe('match', () => {
    const forbidden = new ForbiddenDomains(['Example.com', 'deep.sub.other.test.']);

    it('forbids a listed domain and every name under it', () => {
      expect(forbidden.match('example.com')).toBe('example.com');
      expect(forbidden.match('WWW.Example.COM.')).toBe('example.com');
      expect(forbidden.match('a.b.example.com')).toBe('example.com');
      expect(forbidden.match('x.deep.sub.other.test')).toBe('deep.sub.other.test');
    });

    it('leaves look-alikes and parents open', () => {
      expect(forbidden.match('notexample.com')).toBeUndefined();
      expect(forbidden.match('example.com.evil.test')).toBeUndefined();
      expect(forbidden.match('sub.other.test')).toBeUndefined();
      expect(new ForbiddenDomains([]).match('example.com')).toBeUndefined();
    });
  });
});
