import { isApiKeyFormat } from '../auth/api-key';
import { FetchError, FetchErrorCode } from '../fetch/fetch.errors';
import type { QueryParameters } from '../problems/query-parameters';
import { ProxyModeError, ProxyModeErrorCode } from './proxy-mode.errors';

/** What a proxy client's `Proxy-Authorization` carries: `apikey:params` (fetch-details "Proxy mode"). */
export interface ProxyCredentials {
  apiKey: string;
  /** The Fetch options of the password, `&`-joined there; a repeated name becomes a list, as in a query. */
  params: QueryParameters;
}

// Strict base64 (RFC 4648 §4), padding optional: clients pad, but a missing `=` hides no meaning.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
const HOW = 'Send `Proxy-Authorization: Basic base64(<apikey>:<params>)`, e.g. a proxy URL `http://<apikey>:js_render=true@<host>:<port>`.';

/**
 * Decodes `Proxy-Authorization: Basic base64(<apikey>:<params>)`. The password may be empty.
 *
 * @throws ProxyModeError `AUTH007` when the header is missing, repeated, not Basic, not base64, has
 *   no colon, or the key is not 40 lowercase hexadecimal characters. Whether the key exists is the
 *   authenticator's question, not this one's.
 */
export function parseProxyAuthorization(header: string | string[] | undefined): ProxyCredentials {
  if (header === undefined || header === '') throw invalid(`Proxy-Authorization is missing. ${HOW}`);
  if (Array.isArray(header)) throw invalid(`Send Proxy-Authorization once. ${HOW}`);
  const match = /^basic[ \t]+(\S+)[ \t]*$/i.exec(header.trim());
  if (!match) throw invalid(`Proxy-Authorization must use the Basic scheme. ${HOW}`);
  const token = match[1];
  if (!BASE64.test(token)) throw invalid(`The Basic credentials are not base64. ${HOW}`);
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalid(`The Basic credentials have no colon between the API key and the parameters. ${HOW}`);
  const apiKey = decoded.slice(0, colon);
  if (!isApiKeyFormat(apiKey)) {
    throw invalid(`The user name must be your API key (40 lowercase hexadecimal characters). ${HOW}`);
  }
  return { apiKey, params: paramsOf(decoded.slice(colon + 1)) };
}

/**
 * The Fetch query of one proxied request: the password's options, the request's absolute URL as
 * `url`, and `custom_headers=true` unless the password says otherwise (a proxy forwards the
 * client's headers; fetch-details "Proxy mode").
 *
 * @throws FetchError `REQS004` when the password names `url` or `apikey`, which proxy mode sets itself.
 */
export function proxiedFetchQuery(params: QueryParameters, url: string): QueryParameters {
  for (const reserved of ['url', 'apikey']) {
    if (params[reserved] !== undefined) {
      throw new FetchError(
        FetchErrorCode.InvalidParameters,
        `\`${reserved}\` cannot be a proxy parameter: proxy mode takes the key from the user name and the URL from the request; remove it.`,
        { parameter: reserved },
      );
    }
  }
  return { custom_headers: 'true', ...params, url };
}

function paramsOf(password: string): QueryParameters {
  const params: QueryParameters = {};
  for (const [name, value] of new URLSearchParams(password)) {
    const seen = params[name];
    params[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return params;
}

function invalid(detail: string): ProxyModeError {
  return new ProxyModeError(ProxyModeErrorCode.InvalidProxyAuthorization, detail);
}
