import { rootCertificates } from 'node:tls';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { createEgressAgent, EgressError, EgressErrorCode, EgressPolicy } from '@trawl/egress';
import { signatureHeader, SigningKey } from './signature';
import { WEBHOOK_USER_AGENT } from './webhook-body';

export interface WebhookDeliveryClientOptions {
  policy: EgressPolicy;
  /** Deadline of one attempt (connect, TLS, request, response headers and body), in ms. Default 10,000. */
  timeoutMs?: number;
  /**
   * PEM of extra CAs to trust besides Node's roots (a test receiver's CA). Default none; processes
   * can use `NODE_EXTRA_CA_CERTS` instead.
   */
  extraCaPem?: string;
  /** Clock for the signature's `t`. Default `Date.now`. */
  now?: () => number;
}

/** One POST of one event, as recorded in the delivery log and answered by `POST /webhook/test`. */
export interface AttemptResult {
  /** True only for a 2xx answer. */
  delivered: boolean;
  /** The receiver's status; `null` when no HTTP answer came. */
  statusCode: number | null;
  elapsedMs: number;
  /**
   * Why it failed, when it did: `http_3xx:<status>` (redirects are not followed), `http_4xx:<status>`,
   * `http_5xx:<status>`, `timeout`, `connection_refused`, `connection_failed`, `tls_error`,
   * `dns_failure`, `egress_refused`, `https_required`.
   */
  error?: string;
}

/** What one attempt sends: the exact bytes, and the key to sign with (none for an unsigned webhook). */
export interface WebhookRequest {
  url: string;
  eventId: string;
  body: string;
  signingKey?: SigningKey;
}

const TLS_CODES = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/;
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Sends webhook events: one HTTPS POST per call, through the egress policy (checked before the
 * request and again at connect time by the agent's lookup), redirects never followed, one deadline
 * per attempt. Never throws for the receiver's or the network's failures: they come back as an
 * `AttemptResult` with an `error` text. Used by the dispatcher and by the gateway's `webhook.test`.
 */
export class WebhookDeliveryClient {
  private readonly agent: Agent;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: WebhookDeliveryClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.now = options.now ?? Date.now;
    this.agent = options.extraCaPem
      ? new Agent({
          connect: {
            timeout: this.timeoutMs,
            ca: [...rootCertificates, options.extraCaPem],
            lookup: policyLookup(options.policy),
          },
        })
      : createEgressAgent(options.policy, { connectTimeoutMs: this.timeoutMs });
  }

  async send(webhook: WebhookRequest): Promise<AttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(webhook.url);
    } catch {
      return { delivered: false, statusCode: null, elapsedMs: elapsed(), error: 'https_required' };
    }
    if (url.protocol !== 'https:') return { delivered: false, statusCode: null, elapsedMs: elapsed(), error: 'https_required' };
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      await this.options.policy.assertUrlAllowed(url);
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'x-service-event-id': webhook.eventId,
      };
      if (webhook.signingKey) {
        headers['x-signature'] = signatureHeader(webhook.signingKey, Math.floor(this.now() / 1000), webhook.body);
      }
      // undici's request() follows no redirect unless told to: a 3xx is the receiver's answer.
      const response = await request(url, {
        dispatcher: this.agent,
        method: 'POST',
        headers,
        body: webhook.body,
        signal: deadline.signal,
      });
      await response.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { delivered: true, statusCode: status, elapsedMs: elapsed() };
      return { delivered: false, statusCode: status, elapsedMs: elapsed(), error: `http_${Math.floor(status / 100)}xx:${status}` };
    } catch (error) {
      const reason = deadline.signal.aborted ? 'timeout' : classify(error);
      return { delivered: false, statusCode: null, elapsedMs: elapsed(), error: reason };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Maps a failed request to the short, tenant-safe error text (no address, no internals). */
export function classify(error: unknown): string {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof EgressError) {
      switch (current.code) {
        case EgressErrorCode.DnsFailure:
          return 'dns_failure';
        case EgressErrorCode.Timeout:
          return 'timeout';
        case EgressErrorCode.ConnectFailed:
          return 'connection_failed';
        default:
          return 'egress_refused';
      }
    }
    const code = (current as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return 'connection_refused';
    if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns_failure';
    if (typeof code === 'string' && TLS_CODES.test(code)) return 'tls_error';
    current = (current as { cause?: unknown }).cause;
  }
  return 'connection_failed';
}

/** Like the egress agent's lookup: the address connected to is the address the policy accepted. */
function policyLookup(policy: EgressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolveAll(hostname).then(
      (answers) => {
        if (options.all) callback(null, answers);
        else callback(null, answers[0].address, answers[0].family);
      },
      (error: Error) => callback(error, ''),
    );
  };
}
