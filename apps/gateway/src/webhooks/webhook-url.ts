import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { WebhookError, WebhookErrorCode } from './webhooks.errors';

/**
 * A webhook URL as the API accepts it: absolute, `https` (spec-batch-api §7
 * `callback_url_must_be_https`), no user info (credentials in a URL end up in logs). Whether its host
 * is public is the egress policy's call at send time, where the address is really resolved.
 */
export function parseWebhookUrl(value: string, parameter = 'url'): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new RequestError(RequestErrorCode.ParameterOutOfRange, `\`${parameter}\` is not an absolute URL.`, { parameter });
  }
  if (url.protocol !== 'https:') {
    throw new WebhookError(
      WebhookErrorCode.CallbackUrlMustBeHttps,
      `\`${parameter}\` must be an https URL, not ${url.protocol.slice(0, -1)}.`,
    );
  }
  if (url.username || url.password) {
    throw new RequestError(RequestErrorCode.ParameterOutOfRange, `\`${parameter}\` must not carry user info.`, { parameter });
  }
  return url;
}
