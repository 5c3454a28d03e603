import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '@trawl/testing';
import { expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ECHO_HTML } from '../fixtures/web/sites/echo';
import { Platform } from '../support/platform';

const TRAWL = join(resolve(__dirname, '..', '..'), 'apps', 'cli', 'bin', 'trawl');
const TOOLS = ['batch_results', 'batch_start', 'batch_status', 'crawl_results', 'crawl_start', 'crawl_status', 'extract', 'fetch', 'map'];

/**
 * The MCP server end to end, as an agent uses it: the SDK's own client over streamable HTTP to the
 * gateway's `/mcp`, and over stdio to `trawl mcp`, against the platform's processes and the fixture web.
 */
describe('MCP server (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let apiKey: string;
  let client: Client;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('mcp', { hostMap: fixtureHostMap(), services: ['gateway', 'crawl-coordinator', 'fetch-worker', 'scheduler'] });
    await platform.start();
    ({ api_key: apiKey } = await platform.createTenant({ max_active_jobs: 10, credits: 100_000 }));
    client = new Client({ name: 'trawl-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', platform.gatewayUrl), {
        requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await platform?.stop();
    await web?.close();
  }, 60_000);

  /** The text of a tool's answer, failing the test on a tool error. */
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (result.isError) throw new Error(`${name} answered a tool error: ${text}`);
    return text;
  };

  it('lists its tools, each with a description and an input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
    for (const tool of tools)
      expect({ name: tool.name, described: (tool.description ?? '').length > 20, schema: tool.inputSchema.type }).toEqual({
        name: tool.name,
        described: true,
        schema: 'object',
      });
  });

  it('fetches a page as Markdown by default', async () => {
    const markdown = await call('fetch', { url: web.url('echo.test', '/html') });
    expect(markdown).toContain(`# ${ECHO_HTML.heading}`);
    expect(markdown).toMatch(/^[-*] Sourdough$/m);
    expect(markdown).not.toContain('<h1>');
    const html = await call('fetch', { url: web.url('echo.test', '/html'), format: 'html' });
    expect(html).toContain(`<h1>${ECHO_HTML.heading}</h1>`);
  });

  it("maps a site's URLs", async () => {
    const map = JSON.parse(await call('map', { url: web.url('maps.test', '/'), search: 'red shoes' }));
    expect(map.links.map((link: { url: string }) => link.url)).toEqual([
      web.url('maps.test', '/shoes'),
      web.url('maps.test', '/blog/red-shoes-guide'),
    ]);
  });

  it('starts a crawl, follows its status and reads its results', async () => {
    const started = JSON.parse(await call('crawl_start', { url: web.url('rules.test', '/'), max_items: 1_000, max_pages: 1_000 }));
    const status = await waitFor(
      async () => {
        const crawl = JSON.parse(await call('crawl_status', { crawl_id: started.crawl_id }));
        return crawl.status !== 'running' && crawl;
      },
      { timeoutMs: 60_000, what: 'the crawl to end' },
    );
    expect(status.status).toBe('completed');
    const urls: string[] = [];
    let cursor: string | undefined;
    do {
      const page = JSON.parse(await call('crawl_results', { crawl_id: started.crawl_id, limit: 10, ...(cursor && { cursor }) }));
      urls.push(...page.results.map((result: { url: string }) => result.url));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(urls.sort()).toEqual(expected.rules.allItems(web.port).sort());
  }, 90_000);

  it('runs a batch job and reads its results', async () => {
    const urls = [web.url('maps.test', '/about'), web.url('maps.test', '/contact')];
    const job = JSON.parse(await call('batch_start', { urls }));
    await waitFor(
      async () => {
        const status = JSON.parse(await call('batch_status', { job_id: job.job_id }));
        return status.latest_run?.status === 'completed';
      },
      { timeoutMs: 60_000, what: 'the batch run to complete' },
    );
    const { results } = JSON.parse(await call('batch_results', { job_id: job.job_id }));
    expect(results.map((result: { url: string; status: string }) => [result.url, result.status]).sort()).toEqual(
      urls.map((url) => [url, 'successful']).sort(),
    );
  }, 90_000);

  it("answers the API's refusals as tool errors naming the code", async () => {
    const unprepared = (await client.callTool({ name: 'extract', arguments: { url: web.url('maps.test', '/about') } })) as CallToolResult;
    expect(unprepared.isError).toBe(true);
    expect(unprepared.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^REQS007: /) });
    const unreachable = (await client.callTool({ name: 'map', arguments: { url: web.url('gone.test', '/') } })) as CallToolResult;
    expect(unreachable).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^site_unreachable: /) }] });
  });

  it('refuses a caller without a valid key', async () => {
    const stranger = new Client({ name: 'stranger', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', platform.gatewayUrl), {
      requestInit: { headers: { authorization: 'Bearer not-a-key' } },
    });
    await expect(stranger.connect(transport)).rejects.toThrow(/401/);
    // Stateless: no server-sent event stream to open.
    const stream = await fetch(new URL('/mcp', platform.gatewayUrl), {
      headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(405);
  });

  it('serves the same tools over stdio with trawl mcp', async () => {
    const stdio = new Client({ name: 'trawl-e2e-stdio', version: '1.0.0' });
    await stdio.connect(
      new StdioClientTransport({
        command: TRAWL,
        args: ['mcp'],
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: '/nonexistent',
          TRAWL_API_KEY: apiKey,
          TRAWL_BASE_URL: platform.gatewayUrl,
        },
        stderr: 'pipe',
      }),
    );
    try {
      expect((await stdio.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      const result = (await stdio.callTool({ name: 'map', arguments: { url: web.url('bare.test', '/') } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      const map = JSON.parse((result.content[0] as { text: string }).text);
      expect(map.links.map((link: { url: string }) => link.url)).toEqual(
        ['/', '/three', '/one', '/two'].map((path) => web.url('bare.test', path)),
      );
    } finally {
      await stdio.close();
    }
  });
});
