import { createHmac } from 'node:crypto';
import { WebhookVerificationError } from '../errors';
import { verifyWebhook } from './verify-webhook';

const OLD = { kid: 'kid_old', secret: Buffer.alloc(32, 1).toString('base64') };
const NEW = { kid: 'kid_new', secret: Buffer.alloc(32, 2).toString('base64') };
const NOW = Date.parse('2026-11-27T12:00:00Z');
const BODY = '{"event_type":"run.completed","run_id":"r1"}';

function sign(key: { kid: string; secret: string }, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', Buffer.from(key.secret, 'base64')).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${digest},kid=${key.kid}`;
}

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
  return undefined;
}

describe(verifyWebhook.name, () => {
  const t = NOW / 1000;

  it('verifies a delivery with either key of a rotation, and says which signed it', () => {
    const secrets = [OLD, NEW];
    for (const key of secrets) {
      const verified = verifyWebhook(BODY, { 'X-Signature': sign(key, BODY, t), 'x-service-event-id': 'ev1' }, secrets, { now: NOW });
      expect(verified).toEqual({ event: { event_type: 'run.completed', run_id: 'r1' }, eventId: 'ev1', kid: key.kid, signedAt: t });
    }
  });

  it('takes Fetch API headers, bytes, and secrets by kid', () => {
    const headers = new Headers({ 'x-signature': sign(NEW, BODY, t) });
    expect(verifyWebhook(Buffer.from(BODY), headers, { [NEW.kid]: NEW.secret }, { now: NOW }).kid).toBe(NEW.kid);
  });

  it('refuses a changed body, an unknown key, a missing or malformed header', () => {
    expect(reasonOf(() => verifyWebhook(BODY.replace('r1', 'r2'), { 'x-signature': sign(OLD, BODY, t) }, [OLD], { now: NOW }))).toBe(
      'bad_signature',
    );
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-signature': sign(NEW, BODY, t) }, [OLD], { now: NOW }))).toBe('unknown_key');
    expect(reasonOf(() => verifyWebhook(BODY, {}, [OLD], { now: NOW }))).toBe('missing_signature');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-signature': 't=1,kid=kid_old' }, [OLD], { now: NOW }))).toBe('malformed_signature');
  });

  it('refuses a signature outside the replay window, either side', () => {
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-signature': sign(OLD, BODY, t - 301) }, [OLD], { now: NOW }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-signature': sign(OLD, BODY, t + 301) }, [OLD], { now: NOW }))).toBe(
      'timestamp_outside_tolerance',
    );
    expect(verifyWebhook(BODY, { 'x-signature': sign(OLD, BODY, t - 600) }, [OLD], { now: NOW, toleranceSeconds: 900 }).kid).toBe(OLD.kid);
  });

  it('refuses a signature with a valid key but another kid’s secret', () => {
    const forged = sign(OLD, BODY, t).replace('kid=kid_old', 'kid=kid_new');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-signature': forged }, [OLD, NEW], { now: NOW }))).toBe('bad_signature');
  });
});
