import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from '../errors';

/** The account's signing secrets by key id (`kid`), as `rotate` showed them: base64. */
export type WebhookSecrets = Readonly<Record<string, string>> | ReadonlyArray<{ readonly kid: string; readonly secret: string }>;

/** Request headers as Node (`IncomingHttpHeaders`), the Fetch API (`Headers`) or a plain object give them. */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Oldest (and furthest in the future) a signature's time may be, in seconds [300]. */
  toleranceSeconds?: number;
  /** The current time in milliseconds [`Date.now()`]; for tests. */
  now?: number;
}

/** A delivery whose signature verified. */
export interface VerifiedWebhook<T = unknown> {
  /** The parsed body: `run.completed`, `run.failed` or `webhook.test` event. */
  event: T;
  /** `X-Service-Event-Id`: the same on every attempt of one event; deduplicate on it. */
  eventId: string | undefined;
  /** The key that signed it. */
  kid: string;
  /** When it was signed (the attempt's send time), Unix seconds. */
  signedAt: number;
}

/**
 * Verifies a signed webhook delivery: `X-Signature: t=<unix>,v1=<hex>,kid=<kid>` is HMAC-SHA256,
 * keyed with the base64-decoded secret of `kid`, over `<t>.` and the raw body. Give every secret
 * the receiver holds: during a key rotation deliveries stay signed with the active key until the
 * rotation is finalized and the candidate signs from then on, so a receiver that takes both keys
 * when the candidate is staged never misses a delivery. A signature older (or newer) than `toleranceSeconds` is refused, which bounds the
 * window in which a captured delivery can be replayed; deduplicate on `eventId` within it.
 *
 * @param rawBody the exact bytes received, before any JSON parsing (re-serialised JSON does not verify).
 * @throws WebhookVerificationError with a `reason`.
 */
export function verifyWebhook<T = unknown>(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secrets: WebhookSecrets,
  options: VerifyWebhookOptions = {},
): VerifiedWebhook<T> {
  const header = headerOf(headers, 'x-signature');
  if (header === undefined) throw new WebhookVerificationError('The delivery has no X-Signature header', 'missing_signature');
  const parts = parseSignature(header);
  if (parts === undefined) throw new WebhookVerificationError('X-Signature is not `t=<unix>,v1=<hex>,kid=<kid>`', 'malformed_signature');
  const secret = secretOf(secrets, parts.kid);
  if (secret === undefined)
    throw new WebhookVerificationError(`No secret for key ${parts.kid}: was it rotated in and not given here?`, 'unknown_key');
  const body =
    typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  const expected = createHmac('sha256', Buffer.from(secret, 'base64')).update(`${parts.t}.`).update(body).digest();
  if (!parts.v1.some((digest) => digest.length === expected.length && timingSafeEqual(digest, expected))) {
    throw new WebhookVerificationError('The signature does not match the body', 'bad_signature');
  }
  // Checked after the digest: an unsigned timestamp says nothing.
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - parts.t) > tolerance) {
    throw new WebhookVerificationError(
      `Signed ${now - parts.t} s from now, outside the ${tolerance} s tolerance`,
      'timestamp_outside_tolerance',
    );
  }
  return {
    event: JSON.parse(body.toString('utf8')) as T,
    eventId: headerOf(headers, 'x-service-event-id'),
    kid: parts.kid,
    signedAt: parts.t,
  };
}

function parseSignature(header: string): { t: number; v1: Buffer[]; kid: string } | undefined {
  let t: number | undefined;
  let kid: string | undefined;
  const v1: Buffer[] = [];
  for (const item of header.split(',')) {
    const at = item.indexOf('=');
    if (at < 0) return undefined;
    const name = item.slice(0, at).trim();
    const value = item.slice(at + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    else if (name === 'kid' && value !== '') kid = value;
    else if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(Buffer.from(value, 'hex'));
  }
  return t === undefined || kid === undefined || v1.length === 0 ? undefined : { t, v1, kid };
}

function secretOf(secrets: WebhookSecrets, kid: string): string | undefined {
  if (Array.isArray(secrets)) return (secrets as ReadonlyArray<{ kid: string; secret: string }>).find((entry) => entry.kid === kid)?.secret;
  const byKid = secrets as Readonly<Record<string, string>>;
  return Object.prototype.hasOwnProperty.call(byKid, kid) ? byKid[kid] : undefined;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Readonly<Record<string, string | readonly string[] | undefined>>)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : (value as string | undefined);
  }
  return undefined;
}
