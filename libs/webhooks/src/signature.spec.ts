import { createHmac } from 'node:crypto';
import { newKeyId, newSigningSecret, signatureDigest, signatureHeader } from './signature';

describe('signatureHeader', () => {
  const secret = Buffer.alloc(32, 7).toString('base64');

  it('signs "<t>." + the raw body with the base64-decoded secret', () => {
    const body = '{"event_id":"e1","a":"é"}';
    const expected = createHmac('sha256', Buffer.alloc(32, 7)).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader({ kid: 'kid_1', secret }, 1700000000, body)).toBe(`t=1700000000,v1=${expected},kid=kid_1`);
  });

  it('does not key with the base64 text itself', () => {
    const wrong = createHmac('sha256', secret).update('1.x').digest('hex');
    expect(signatureDigest(secret, 1, 'x')).not.toBe(wrong);
  });

  it('gives the same digest for a string and its UTF-8 bytes', () => {
    expect(signatureDigest(secret, 5, 'ü')).toBe(signatureDigest(secret, 5, Buffer.from('ü', 'utf8')));
  });
});

describe('newSigningSecret', () => {
  it('is 32 random bytes in base64', () => {
    const a = newSigningSecret();
    expect(Buffer.from(a, 'base64')).toHaveLength(32);
    expect(a).not.toBe(newSigningSecret());
  });
});

describe('newKeyId', () => {
  it('is kid_ and 16 hex characters', () => {
    expect(newKeyId()).toMatch(/^kid_[0-9a-f]{16}$/);
  });
});
