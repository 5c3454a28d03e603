import { inspect } from 'node:util';
import { SecretBox } from './secret-box';
import { secretsKeyEnv } from './secrets-key.config';

describe(SecretBox.name, () => {
  const box = new SecretBox(Buffer.alloc(32, 1));

  describe('seal/open', () => {
    it('opens what it sealed for the same context', () => {
      const sealed = box.seal(Buffer.from('top secret'), 't1:kid_a');
      expect(sealed.includes(Buffer.from('top secret'))).toBe(false);
      expect(box.open(sealed, 't1:kid_a').toString()).toBe('top secret');
    });

    it('refuses another context (a sealed secret copied onto another row)', () => {
      const sealed = box.seal(Buffer.from('s'), 't1:kid_a');
      expect(() => box.open(sealed, 't2:kid_a')).toThrow();
    });

    it('refuses another key and altered data', () => {
      const sealed = box.seal(Buffer.from('s'), 'c');
      expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed, 'c')).toThrow();
      sealed[sealed.length - 1] ^= 1;
      expect(() => box.open(sealed, 'c')).toThrow();
    });

    it('uses a fresh IV each time', () => {
      expect(box.seal(Buffer.from('s'), 'c').equals(box.seal(Buffer.from('s'), 'c'))).toBe(false);
    });
  });

  it('never prints its key', () => {
    expect(inspect(box)).toBe('[SecretBox]');
    expect(JSON.stringify({ box })).toBe('{"box":"[SecretBox]"}');
  });

  it('needs 32 bytes', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('secretsKeyEnv', () => {
  it('parses 32 base64 bytes, leaves an unset key undefined and refuses other lengths', () => {
    expect(secretsKeyEnv.parse(Buffer.alloc(32).toString('base64'))).toBeInstanceOf(SecretBox);
    expect(secretsKeyEnv.parse(undefined)).toBeUndefined();
    expect(secretsKeyEnv.safeParse(Buffer.alloc(31).toString('base64')).success).toBe(false);
  });
});
