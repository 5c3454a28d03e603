import type { CaptchaSolver, CaptchaSolverRequest, SubscriptionDetails } from '../generated/api-types';
import type { Transport } from '../http/transport';

/** The account: usage of the billing period, and its captcha solver. */
export class AccountResource {
  constructor(private readonly transport: Transport) {}

  /** Credits used and left, concurrency, rate limit, features and products of the plan. */
  usage(options: { signal?: AbortSignal } = {}): Promise<SubscriptionDetails> {
    return this.transport.json<SubscriptionDetails>({
      method: 'GET',
      path: '/v1/subscriptions/self/details',
      retrySafe: true,
      signal: options.signal,
    });
  }

  captchaSolver(options: { signal?: AbortSignal } = {}): Promise<CaptchaSolver> {
    return this.transport.json<CaptchaSolver>({
      method: 'GET',
      path: '/v1/subscriptions/self/captcha_solver',
      retrySafe: true,
      signal: options.signal,
    });
  }

  setCaptchaSolver(request: CaptchaSolverRequest, options: { signal?: AbortSignal } = {}): Promise<CaptchaSolver> {
    return this.transport.json<CaptchaSolver>({
      method: 'PUT',
      path: '/v1/subscriptions/self/captcha_solver',
      json: request,
      retrySafe: true,
      signal: options.signal,
    });
  }

  async removeCaptchaSolver(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.transport.send({ method: 'DELETE', path: '/v1/subscriptions/self/captcha_solver', retrySafe: true, signal: options.signal });
  }
}
