import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Readable } from 'node:stream';
import {
  CRAWL_PAGE_SIZES,
  crawlContentQuery,
  crawlUrlQuery,
  type CrawlUrlFateResource,
  listCrawlsQuery,
  readCrawlQuery,
  startCrawlBody,
  type CrawlListResource,
  type CrawlPageResource,
  type CrawlResource,
  type StopCrawlResource,
} from '@trawl/contracts/http';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { assertNoBody, parseBody } from '../problems/body-validation';
import {
  assertKnownQueryParameters,
  booleanQueryParameter,
  intQueryParameter,
  QueryParameters,
  singleQueryValue,
} from '../problems/query-parameters';
import { crawlPath, presentCrawl, presentDownloadLine, presentResult, presentStop } from './crawl.presenter';
import { CrawlRecord } from './crawls.repository';
import { CrawlsService } from './crawls.service';
import { RequestError, RequestErrorCode } from '../problems/request.errors';

/** Crawl API (spec-crawl-api §4). Every route is authenticated by the API key hook. */
@Controller('v1/crawls')
export class CrawlsController {
  constructor(
    private readonly crawls: CrawlsService,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  @Post()
  @HttpCode(202)
  async start(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Headers('idempotency-key') idempotencyHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CrawlResource> {
    assertKnownQueryParameters(query, []);
    const idempotencyKey = IdempotencyService.keyFromHeader(idempotencyHeader);
    const request = parseBody(startCrawlBody, body);
    const crawl = await this.crawls.start(tenant.tenantId, request, idempotencyKey);
    void reply.header('location', crawlPath(crawl.id));
    return presentCrawl(crawl);
  }

  @Get()
  async list(@AuthenticatedTenant() tenant: TenantContext, @Query() query: QueryParameters): Promise<CrawlListResource> {
    assertKnownQueryParameters(query, Object.keys(listCrawlsQuery.shape));
    const limit = intQueryParameter(query, 'limit', CRAWL_PAGE_SIZES.list);
    const page = await this.crawls.list(tenant.tenantId, cursorParameter(query), limit);
    return {
      crawls: page.crawls.map(presentCrawl),
      ...(page.nextCursor !== undefined && { next_cursor: page.nextCursor }),
    };
  }

  @Get(':crawlId')
  async read(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('crawlId') crawlId: string,
    @Query() query: QueryParameters,
  ): Promise<CrawlPageResource> {
    assertKnownQueryParameters(query, Object.keys(readCrawlQuery.shape));
    const limit = intQueryParameter(query, 'limit', CRAWL_PAGE_SIZES.results);
    const page = await this.crawls.read(tenant.tenantId, crawlId, cursorParameter(query), limit);
    return {
      ...presentCrawl(page.crawl),
      results: page.results.map((result) => presentResult(page.crawl, result)),
      next_cursor: page.nextCursor,
    };
  }

  @Get(':crawlId/urls')
  async url(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('crawlId') crawlId: string,
    @Query() query: QueryParameters,
  ): Promise<CrawlUrlFateResource> {
    assertKnownQueryParameters(query, Object.keys(crawlUrlQuery.shape));
    const url = singleQueryValue(query, 'url');
    if (url === undefined || url === '') {
      throw new RequestError(RequestErrorCode.InvalidParameter, '`url` is required: the URL to ask about.', { parameter: 'url' });
    }
    return this.crawls.urlFate(tenant.tenantId, crawlId, url);
  }

  @Get(':crawlId/download')
  async download(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('crawlId') crawlId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    const crawl = await this.crawls.get(tenant.tenantId, crawlId);
    await reply
      .status(200)
      .headers({
        'content-type': 'application/x-ndjson',
        'content-disposition': `attachment; filename="${crawl.id}.jsonl"`,
        'x-crawl-status': crawl.status,
      })
      .send(Readable.from(this.downloadChunks(tenant.tenantId, crawl)));
  }

  @Get(':crawlId/contents/:contentId')
  async content(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('crawlId') crawlId: string,
    @Param('contentId') contentId: string,
    @Query() query: QueryParameters,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    assertKnownQueryParameters(query, Object.keys(crawlContentQuery.shape));
    const asFile = booleanQueryParameter(query, 'download', false);
    const html = await this.crawls.content(tenant.tenantId, crawlId, contentId);
    void reply.headers({
      'content-type': 'text/html; charset=utf-8',
      // Pages written by strangers, served from the API's origin: no script runs, no sniffing.
      'content-security-policy': 'sandbox',
      'x-content-type-options': 'nosniff',
      ...(asFile && { 'content-disposition': `attachment; filename="${contentId}.html"` }),
    });
    return html;
  }

  @Post(':crawlId/stop')
  @HttpCode(200)
  async stop(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('crawlId') crawlId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<StopCrawlResource> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    return presentStop(await this.crawls.stop(tenant.tenantId, crawlId));
  }

  /** NDJSON text, one chunk per keyset page of results. */
  private async *downloadChunks(tenantId: string, crawl: CrawlRecord): AsyncGenerator<string> {
    try {
      for await (const page of this.crawls.allResults(tenantId, crawl)) {
        yield page.map((record) => `${presentDownloadLine(crawl, record)}\n`).join('');
      }
    } catch (error) {
      // The status line has left: the client sees a cut response; the reason is only in the logs.
      this.logger.error({ err: error, crawl_id: crawl.id }, 'download failed mid-stream');
      throw error;
    }
  }
}

/** `cursor`, with an empty value read as "from the start" (some clients send `cursor=`). */
function cursorParameter(query: QueryParameters): string | undefined {
  return singleQueryValue(query, 'cursor') || undefined;
}
