import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { basename, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { registrableDomain } from '@trawl/egress';
import type { ProductTruth } from '../test/support/extract-scoring';

/*
 * The two public extraction benchmarks by Zyte (scrapinghub), read from a local copy and served on
 * loopback under each page's own host and path. Their pages are third-party content: they are read
 * from the datasets directory at run time and never copied into the repository.
 */

export const PRODUCT_DATASET = 'product-extraction-benchmark';
export const ARTICLE_DATASET = 'article-extraction-benchmark';

const HERE = resolve(__dirname, '..');
/** The repository root, from the TypeScript source or from its compiled copy under dist/. */
const ROOT = basename(HERE) === 'dist' ? resolve(HERE, '..') : HERE;

/** `--datasets <dir>`, else `TRAWL_DATASETS`, else `../shared/datasets` beside the repository. */
export function datasetsDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(flag ?? env.TRAWL_DATASETS ?? join(ROOT, '..', 'shared', 'datasets'));
}

/** A dataset page's HTML (stored gzipped), decoded. */
export function readPageHtml(page: Pick<DatasetPage, 'htmlFile'>): string {
  return gunzipSync(readFileSync(page.htmlFile)).toString('utf8');
}

/** One page of a dataset: where it lived, where it is served, where its HTML is. */
export interface DatasetPage {
  /** The dataset's key (the page's sha256). */
  id: string;
  /** The URL the dataset recorded (mostly https). */
  originalUrl: string;
  /** Lower-case host name, served by the dataset web. */
  host: string;
  /** Its registrable domain: what Extract prepares (`www.amazon.co.uk` → `amazon.co.uk`). */
  domain: string;
  /** Path and query, as served (the fragment dropped). */
  target: string;
  htmlFile: string;
}

export interface ProductPage extends DatasetPage {
  truth: ProductTruth;
}

export interface ArticlePage extends DatasetPage {
  articleBody: string;
}

function pageOf(id: string, url: string, htmlFile: string): DatasetPage {
  const parsed = new URL(url);
  const host = parsed.hostname.toLowerCase();
  return { id, originalUrl: url, host, domain: registrableDomain(host), target: `${parsed.pathname}${parsed.search}`, htmlFile };
}

/** The product benchmark's pages with their ground truth, or undefined when the folder is missing. */
export function loadProductDataset(dir: string): ProductPage[] | undefined {
  const root = join(dir, PRODUCT_DATASET, 'dataset');
  if (!existsSync(join(root, 'ground-truth.json'))) return undefined;
  const truth = JSON.parse(readFileSync(join(root, 'ground-truth.json'), 'utf8')) as Record<string, ProductTruth & { url: string }>;
  return Object.entries(truth).map(([id, record]) => ({ ...pageOf(id, record.url, join(root, 'html', `${id}.html.gz`)), truth: record }));
}

/** The article benchmark's pages with their ground-truth bodies, or undefined when the folder is missing. */
export function loadArticleDataset(dir: string): ArticlePage[] | undefined {
  const root = join(dir, ARTICLE_DATASET);
  if (!existsSync(join(root, 'ground-truth.json'))) return undefined;
  const truth = JSON.parse(readFileSync(join(root, 'ground-truth.json'), 'utf8')) as Record<string, { url: string; articleBody: string }>;
  return Object.entries(truth).map(([id, record]) => ({
    ...pageOf(id, record.url, join(root, 'html', `${id}.html.gz`)),
    articleBody: record.articleBody,
  }));
}

/** The published figures a dataset's output files give, for the scorer's self-check (product only). */
export function loadProductOutputs(dir: string): Record<string, Record<string, Record<string, string>>> {
  const root = join(dir, PRODUCT_DATASET, 'dataset', 'output');
  const outputs: Record<string, Record<string, Record<string, string>>> = {};
  for (const system of ['Zyte', 'Diffbot', 'extruct']) {
    const file = join(root, `${system}.json`);
    if (existsSync(file)) outputs[system] = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  }
  return outputs;
}

/**
 * Pages grouped by registrable domain into rounds: a domain with several pages is split into `folds`
 * groups, each scored once by a preparation on the others (round f scores group f); a domain with
 * one page is prepared with it and scores it (round 0). Prepared domains are shared by every tenant
 * and a ready one is never prepared again on request, so each round needs a platform of its own.
 */
export interface PreparationPlan<P extends DatasetPage> {
  round: number;
  domain: string;
  examples: P[];
  scored: P[];
}

export function planRounds<P extends DatasetPage>(pages: readonly P[], folds: number): PreparationPlan<P>[] {
  const byDomain = new Map<string, P[]>();
  for (const page of pages) byDomain.set(page.domain, [...(byDomain.get(page.domain) ?? []), page]);
  const plans: PreparationPlan<P>[] = [];
  for (const [domain, domainPages] of [...byDomain].sort(([a], [b]) => a.localeCompare(b))) {
    if (domainPages.length === 1) {
      plans.push({ round: 0, domain, examples: domainPages, scored: domainPages });
      continue;
    }
    const groups = Math.min(folds, domainPages.length);
    for (let round = 0; round < groups; round++) {
      plans.push({
        round,
        domain,
        examples: domainPages.filter((_, i) => i % groups !== round),
        scored: domainPages.filter((_, i) => i % groups === round),
      });
    }
  }
  return plans;
}

/** A loopback HTTP server answering each dataset page at its own host and path (Host header + target). */
export interface DatasetWeb {
  port: number;
  /** `EGRESS_HOST_MAP` with every page's host on 127.0.0.1. */
  hostMap: string;
  /** `http://<host>:<port><target>`: the page's URL as Trawl fetches it (http, not the original https). */
  url(page: DatasetPage): string;
  /** Requests answered 200 / 404 so far. */
  counts(): { served: number; missing: number };
  close(): Promise<void>;
}

export async function startDatasetWeb(pages: readonly DatasetPage[]): Promise<DatasetWeb> {
  const byAddress = new Map<string, DatasetPage>();
  for (const page of pages) byAddress.set(`${page.host}${page.target}`, page);
  const counts = { served: 0, missing: 0 };
  const server: Server = createServer((request, response) => {
    const host = (request.headers.host ?? '').replace(/:\d+$/, '').toLowerCase();
    const page = byAddress.get(`${host}${request.url ?? '/'}`);
    if (!page) {
      // robots.txt, sitemaps, links to pages the dataset does not hold: a plain 404.
      counts.missing++;
      response
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Not found</title><h1>Not found</h1>');
      return;
    }
    counts.served++;
    // Stored gzip-compressed, UTF-8 (both datasets' READMEs).
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(gunzipSync(readFileSync(page.htmlFile)));
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const hosts = [...new Set(pages.map((page) => page.host))].sort();
  let closing: Promise<void> | undefined;
  return {
    port,
    hostMap: hosts.map((host) => `${host}=127.0.0.1`).join(','),
    url: (page) => `http://${page.host}:${port}${page.target}`,
    counts: () => ({ ...counts }),
    close() {
      closing ??= new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
