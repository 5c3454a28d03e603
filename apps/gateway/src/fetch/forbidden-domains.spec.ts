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

    it('forbids every site under a listed shared-hosting suffix, and one site alone when listed', () => {
      const shared = new ForbiddenDomains(['github.io', 'alice.netlify.app']);
      expect(shared.match('alice.github.io')).toBe('github.io');
      expect(shared.match('docs.alice.netlify.app')).toBe('alice.netlify.app');
      expect(shared.match('bob.netlify.app')).toBeUndefined();
    });

    it('leaves look-alikes and parents open', () => {
      expect(forbidden.match('notexample.com')).toBeUndefined();
      expect(forbidden.match('example.com.evil.test')).toBeUndefined();
      expect(forbidden.match('sub.other.test')).toBeUndefined();
      expect(new ForbiddenDomains([]).match('example.com')).toBeUndefined();
    });
  });
});
