import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TrawlApiError, TrawlError, type TrawlClient } from '@trawl/sdk';
import { z } from 'zod';

/** Most characters of a page a tool answers: a model's context is the limit, not the page. */
export const MAX_TOOL_TEXT = 200_000;

const outputFormat = z.enum(['markdown', 'html', 'plaintext']).default('markdown');

/**
 * The Trawl API as MCP tools, answered through `trawl` (the SDK, with the caller's key): the same
 * limits, billing and errors as the REST API, whether the server runs in the gateway (`/mcp`) or
 * beside an agent (`trawl mcp`, over stdio). A refusal of the API is a tool error (`isError`) whose
 * text gives its code and detail, so the model can read it and act.
 */
export function createTrawlMcpServer(trawl: TrawlClient, version: string): McpServer {
  const server = new McpServer({ name: 'trawl', version }, { instructions: INSTRUCTIONS });

  server.registerTool(
    'fetch',
    {
      title: 'Fetch a page',
      description:
        'Fetch one web page and answer its content, Markdown by default. js_render renders it in a browser (5 credits), premium_proxy goes through residential proxies (10), both 25; plain is 1.',
      inputSchema: {
        url: z.string().describe('The page (http or https).'),
        format: outputFormat.describe('markdown (default), html, or plaintext.'),
        js_render: z.boolean().optional().describe('Render the page in a browser first.'),
        premium_proxy: z.boolean().optional().describe('Fetch through premium (residential) proxies.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ url, format, js_render, premium_proxy }) =>
      answer(async () => {
        const page = await trawl.fetch.page(url, {
          ...(format !== 'html' && { response_type: format }),
          ...(js_render && { js_render: true }),
          ...(premium_proxy && { premium_proxy: true }),
        });
        return text(page.text(), `status ${page.status}, ${page.credits ?? 0} credits`);
      }),
  );

  server.registerTool(
    'map',
    {
      title: "List a site's URLs",
      description:
        "List a site's URLs from its sitemaps and page, without crawling it; search ranks them by relevance. One credit per 5,000 URLs.",
      inputSchema: {
        url: z.string().describe('The site (http or https).'),
        search: z.string().optional().describe('Words the URLs or their link texts should hold; most relevant first.'),
        limit: z.number().int().min(1).max(100_000).optional().describe('Most URLs answered (default 5,000).'),
        include_subdomains: z.boolean().optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ url, ...options }) => answer(async () => json(await trawl.map(url, options))),
  );

  server.registerTool(
    'crawl_start',
    {
      title: 'Start a crawl',
      description:
        "Start crawling a site from a URL, following its links (and its sitemaps with sitemap: include). Answers the crawl's id; read its progress with crawl_status and its URLs with crawl_results. One credit per page fetched.",
      inputSchema: {
        url: z.string().describe('The start URL.'),
        max_items: z.number().int().min(1).max(100_000).optional().describe('URLs to keep (default 100).'),
        max_pages: z.number().int().min(1).max(100_000).optional().describe('Pages to fetch (default 100).'),
        depth: z.number().int().min(1).optional().describe('Link hops to follow (default unlimited).'),
        include_patterns: z.array(z.string()).optional(),
        exclude_patterns: z.array(z.string()).optional(),
        sitemap: z.enum(['include', 'only', 'skip']).optional(),
        respect_robots: z.boolean().optional(),
      },
      annotations: { openWorldHint: true },
    },
    (request) => answer(async () => json(await trawl.crawls.start(request))),
  );

  server.registerTool(
    'crawl_status',
    {
      title: "A crawl's status",
      description: "A crawl's status and coverage (pages fetched, failed, URLs found).",
      inputSchema: { crawl_id: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ crawl_id }) =>
      answer(async () => {
        const { results: _results, next_cursor: _cursor, ...crawl } = await trawl.crawls.get(crawl_id, { limit: 1 });
        return json(crawl);
      }),
  );

  server.registerTool(
    'crawl_results',
    {
      title: "A crawl's URLs",
      description: "The URLs a crawl found, a page at a time: pass the answer's next_cursor as cursor to read on.",
      inputSchema: {
        crawl_id: z.string(),
        cursor: z.string().optional(),
        limit: z.number().int().min(1).max(1_000).optional().describe('URLs per page (default 100).'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ crawl_id, cursor, limit }) =>
      answer(async () => {
        const page = await trawl.crawls.get(crawl_id, { cursor, limit: limit ?? 100 });
        return json({ status: page.status, results: page.results, next_cursor: page.next_cursor });
      }),
  );

  server.registerTool(
    'batch_start',
    {
      title: 'Fetch many pages',
      description:
        "Start a batch job fetching every URL given (up to 1,000 here), with the Fetch API's options. Answers the job; read its run with batch_status and its results with batch_results.",
      inputSchema: {
        urls: z.array(z.string()).min(1).max(1_000),
        format: outputFormat.describe('markdown (default), html, or plaintext.'),
        js_render: z.boolean().optional(),
      },
      annotations: { openWorldHint: true },
    },
    ({ urls, format, js_render }) =>
      answer(async () => {
        const job = await trawl.jobs.create({
          type: 'regular',
          status: 'closed',
          service_params: { ...(format !== 'html' && { response_type: format }), ...(js_render && { js_render: true }) },
          tasks: urls.map((url) => ({ url })),
        });
        return json(job);
      }),
  );

  server.registerTool(
    'batch_status',
    {
      title: "A batch job's status",
      description: "A batch job with its latest run's status and counts.",
      inputSchema: { job_id: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ job_id }) => answer(async () => json(await trawl.jobs.get(job_id))),
  );

  server.registerTool(
    'batch_results',
    {
      title: "A batch job's results",
      description: "The task results of a batch job's latest run (URL, status, result link), at most `limit` of them.",
      inputSchema: { job_id: z.string(), limit: z.number().int().min(1).max(1_000).optional().describe('Default 100.') },
      annotations: { readOnlyHint: true },
    },
    ({ job_id, limit }) =>
      answer(async () => {
        const results: unknown[] = [];
        for await (const result of trawl.jobs.results(job_id)) {
          results.push(result);
          if (results.length >= (limit ?? 100)) break;
        }
        return json({ results });
      }),
  );

  server.registerTool(
    'extract',
    {
      title: 'Structured data of a page',
      description:
        "The structured data (product, article, …) of a page of a domain prepared for extraction (ask an operator, or the REST API's /v1/extract/prepared-domains). Billed as a Fetch request.",
      inputSchema: { url: z.string() },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ url }) => answer(async () => json((await trawl.fetch.extract(url)).parsed)),
  );

  return server;
}

const INSTRUCTIONS =
  'Trawl fetches and crawls web pages for you. fetch reads one page (Markdown by default); map lists a site’s URLs; ' +
  'crawl_start, crawl_status and crawl_results crawl a site; batch_start, batch_status and batch_results fetch many URLs; ' +
  'extract reads structured data of a prepared domain. Errors name a code: AUTH006/AUTH008 mean slow down, RESP001 that the page could not be fetched.';

/** Runs a tool, answering the API's refusals (and the SDK's transport failures) as tool errors. */
async function answer(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TrawlApiError) {
      return { isError: true, content: [{ type: 'text', text: `${error.code ?? error.status}: ${error.message}` }] };
    }
    if (error instanceof TrawlError) return { isError: true, content: [{ type: 'text', text: error.message }] };
    throw error;
  }
}

function text(body: string, note: string): CallToolResult {
  const cut = body.length > MAX_TOOL_TEXT;
  return {
    content: [
      { type: 'text', text: cut ? `${body.slice(0, MAX_TOOL_TEXT)}\n\n[cut at ${MAX_TOOL_TEXT.toLocaleString('en')} characters]` : body },
    ],
    _meta: { trawl: note },
  };
}

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}
