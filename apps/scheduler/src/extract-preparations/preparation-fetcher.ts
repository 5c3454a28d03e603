import { EXTRACT_PREPARATION_TENANT, EXTRACT_RENDER_WAIT_MS, FETCH_TIERS, fetchReplyV1, type FetchRequestV1 } from '@trawl/contracts';

type FetchTier = (typeof FETCH_TIERS)[number];
import { MessagingError, MessagingErrorCode, StreamedRpcClient } from '@trawl/messaging';

/** A page as a preparation got it through the fetch workers. */
export type FetchedPage =
  | {
      ok: true;
      url: string;
      finalUrl: string;
      status: number;
      contentType: string;
      body: string;
      /** The tier that served it: adaptive stealth renders a page whose HTML asks for JavaScript. */
      tier: FetchTier | null;
    }
  | { ok: false; url: string; code: string };

export interface PreparationFetcherOptions {
  rpc: StreamedRpcClient;
  /** `topology.subjects.fetchRequest`. */
  subject: string;
  /** Per page, in ms. */
  timeoutMs: number;
  maxBodyBytes: number;
}

/**
 * Fetches a preparation's pages through Trawl's own fetch path (the Fetch API's workers): egress
 * policy, adaptive stealth (`mode=auto` when not rendering), and the rendering `extract=auto` uses.
 * Under no tenant: nothing is billed. Throws `MessagingError` when no worker could take a page
 * (none running, all busy): the page was not tried, and the preparation is retried later.
 */
export class PreparationFetcher {
  constructor(private readonly options: PreparationFetcherOptions) {}

  async fetch(url: string, render: boolean, requestId: string): Promise<FetchedPage> {
    const request: FetchRequestV1 = {
      v: 1,
      request_id: requestId,
      tenant_id: EXTRACT_PREPARATION_TENANT,
      url,
      method: 'GET',
      headers: {},
      options: {
        js_render: render,
        premium_proxy: false,
        json_response: false,
        // The target's status comes back as it is: a 404 is a page to skip, not an error to map.
        original_status: true,
        ...(render ? { wait: EXTRACT_RENDER_WAIT_MS } : { mode: 'auto' as const }),
      },
      deadline_at: Date.now() + this.options.timeoutMs,
      max_body_bytes: this.options.maxBodyBytes,
    };
    try {
      const { head, body } = await this.options.rpc.call(this.options.subject, Buffer.from(JSON.stringify(request)), {
        headers: { 'x-request-id': requestId },
      });
      const reply = fetchReplyV1.parse(JSON.parse(Buffer.from(head).toString('utf8')));
      if (reply.error) return { ok: false, url, code: reply.error.code };
      const finalUrl = headerValue(reply.headers, 'zr-final-url') ?? url;
      return {
        ok: true,
        url,
        finalUrl,
        status: reply.status,
        contentType: reply.content_type,
        body: body.toString('utf8'),
        tier: reply.billed_tier,
      };
    } catch (error) {
      // No worker up, or all busy: the page was not tried. The preparation waits and comes back.
      if (
        error instanceof MessagingError &&
        (error.code === MessagingErrorCode.RpcNoResponders || error.code === MessagingErrorCode.RpcBusy)
      )
        throw error;
      return { ok: false, url, code: (error as { code?: string }).code ?? 'rpc_failed' };
    }
  }
}

function headerValue(headers: Record<string, string | string[]>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** The HTML of a fetched answer that is a page to learn from (a 2xx HTML document), else undefined. */
export function learnableHtml(page: FetchedPage): string | undefined {
  return page.ok && page.status >= 200 && page.status < 300 && /html/i.test(page.contentType) ? page.body : undefined;
}
