import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { baseConfigSchema, loadConfig } from '@trawl/config';
import { applyHeapSettings } from '@trawl/service-kit/heap-settings';
import {
  articleBodyOf,
  exactTokens,
  macroMetrics,
  microMetrics,
  PRODUCT_ATTRIBUTES,
  productPredictionOf,
  scoreProductPage,
  shingleMatching,
  type Metrics,
  type ProductAttribute,
  type ProductPrediction,
  type TpFpFn,
} from '../test/support/extract-scoring';
import { BENCHMARK_CLIENT, Platform, SERVICES, type ApiClient, type ServiceName } from '../test/support/platform';
import { scrapeLabelled } from './service-metrics';
import { APPLY_TARGET_MS, measureApplyTimes, type Percentiles } from './extract-apply-time';
import {
  ARTICLE_DATASET,
  datasetsDir,
  loadArticleDataset,
  loadProductDataset,
  loadProductOutputs,
  planRounds,
  PRODUCT_DATASET,
  startDatasetWeb,
  type ArticlePage,
  type DatasetPage,
  type DatasetWeb,
  type PreparationPlan,
  type ProductPage,
} from './extract-datasets';
import { onInterrupt } from './interrupt';

/*
 * extract=auto against the two public extraction benchmarks by Zyte (product and article), each page
 * served under its own host on loopback, each domain prepared through the public API, then every
 * page extracted once by a preparation that did not see it (or, for a domain with one page, by the
 * preparation on it). Scored with the benchmarks' own rules (test/support/extract-scoring.ts).
 */

const RESULTS_DIR = resolve(__dirname, '..', '..', 'bench', 'results');

/** Published figures (F1, precision, recall) from each dataset's README. */
const PUBLISHED_PRODUCT: Record<string, Partial<Record<ProductAttribute, Metrics>>> = {
  Zyte: {
    price: { f1: 0.918, precision: 0.918, recall: 0.918 },
    sku: { f1: 0.841, precision: 0.86, recall: 0.822 },
    availability: { f1: 0.957, precision: 0.957, recall: 0.957 },
    InStock: { f1: 0.977, precision: 0.97, recall: 0.985 },
    OutOfStock: { f1: 0.625, precision: 0.714, recall: 0.556 },
  },
  Diffbot: {
    price: { f1: 0.824, precision: 0.844, recall: 0.806 },
    sku: { f1: 0.765, precision: 0.828, recall: 0.711 },
    availability: { f1: 0.943, precision: 0.943, recall: 0.943 },
    InStock: { f1: 0.97, precision: 0.956, recall: 0.985 },
    OutOfStock: { f1: 0.429, precision: 0.6, recall: 0.333 },
  },
  extruct: {
    price: { f1: 0.685, precision: 0.864, recall: 0.567 },
    sku: { f1: 0.537, precision: 0.786, recall: 0.407 },
    availability: { f1: 0.626, precision: 0.905, recall: 0.479 },
    InStock: { f1: 0.954, precision: 0.954, recall: 0.954 },
    OutOfStock: { f1: 0.333, precision: 0.333, recall: 0.333 },
  },
};
const PUBLISHED_ARTICLE: Record<string, Metrics> = {
  'AutoExtract (Nov 2019)': { f1: 0.97, precision: 0.984, recall: 0.956 },
  'rs_trafilatura 9261e08': { f1: 0.97, precision: 0.951, recall: 0.99 },
  'trafilatura 2.0.0': { f1: 0.958, precision: 0.938, recall: 0.978 },
  'readability_js 0.6.0': { f1: 0.947, precision: 0.914, recall: 0.982 },
  'html-text 0.7.0 (all text)': { f1: 0.665, precision: 0.5, recall: 0.994 },
};

/** The issue's verdicts: beat the embedded-markup-only baseline (extruct) on these; article body F1 at least 0.94. */
const PRODUCT_TARGETS: Partial<Record<ProductAttribute, number>> = { price: 0.685, sku: 0.537, availability: 0.626 };
const ARTICLE_BODY_TARGET = 0.94;

interface ExtractBenchOptions {
  datasets?: string;
  /** Groups each multi-page domain is split into; each group is scored by a preparation on the others (`--folds`, default 2). */
  folds: number;
  /** Longest a round's preparations may take, seconds (`--timeout`, default 1,800). */
  timeoutSeconds: number;
  /** Extract requests in flight (`--concurrency`, default 4). */
  concurrency: number;
  only?: 'product' | 'article';
  /** Domains per dataset, for a quick run (`--domains`, default all). */
  domains?: number;
  logLevel: string;
  services: ServiceName[];
  serviceEnv: Record<string, string>;
}

const USAGE =
  'usage: extract-bench [--datasets <dir>] [--folds <n>] [--timeout <s>] [--concurrency <n>] [--only product|article] [--domains <n>] ' +
  '[--services gateway,scheduler,…] [--log-level <level>] [--set KEY=VALUE]…';

function integer(flag: string, raw: string | undefined, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${flag} needs an integer ≥ ${min}, got "${raw ?? ''}"\n${USAGE}`);
  return value;
}

export function parseExtractBenchOptions(args: readonly string[]): ExtractBenchOptions {
  const options: ExtractBenchOptions = {
    folds: 2,
    timeoutSeconds: 1_800,
    concurrency: 4,
    logLevel: 'warn',
    services: [...SERVICES],
    serviceEnv: {},
  };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    switch (flag) {
      case '--datasets':
        if (!value) throw new Error(`--datasets needs a directory\n${USAGE}`);
        options.datasets = value;
        break;
      case '--folds':
        options.folds = integer(flag, value, 2);
        break;
      case '--timeout':
        options.timeoutSeconds = integer(flag, value, 1);
        break;
      case '--concurrency':
        options.concurrency = integer(flag, value, 1);
        break;
      case '--domains':
        options.domains = integer(flag, value, 1);
        break;
      case '--only':
        if (value !== 'product' && value !== 'article') throw new Error(`--only needs product or article\n${USAGE}`);
        options.only = value;
        break;
      case '--services': {
        const names = (value ?? '').split(',').filter(Boolean);
        const unknown = names.filter((name) => !(SERVICES as readonly string[]).includes(name));
        if (names.length === 0 || unknown.length > 0) throw new Error(`--services needs names among ${SERVICES.join(', ')}\n${USAGE}`);
        options.services = names as ServiceName[];
        break;
      }
      case '--log-level':
        if (!value) throw new Error(`--log-level needs a value\n${USAGE}`);
        options.logLevel = value;
        break;
      case '--set': {
        const eq = value?.indexOf('=') ?? -1;
        if (!value || eq < 1) throw new Error(`--set needs KEY=VALUE, got "${value ?? ''}"\n${USAGE}`);
        options.serviceEnv[value.slice(0, eq)] = value.slice(eq + 1);
        break;
      }
      default:
        throw new Error(`unknown option "${flag}"\n${USAGE}`);
    }
  }
  return options;
}

interface PreparedRecord {
  domain: string;
  status: 'queued' | 'preparing' | 'ready' | 'failed';
  failure_reason?: string;
}

/** Outcome of one extract request: `parsed` when answered 200, else the status and problem code. */
interface Extracted {
  parsed?: unknown;
  status: number;
  code?: string;
}

async function extract(platform: Platform, apiKey: string, url: string): Promise<Extracted> {
  const query = new URLSearchParams({ apikey: apiKey, url, extract: 'auto' });
  try {
    const res = await fetch(`${platform.gatewayUrl}/v1/?${query.toString()}`, { signal: AbortSignal.timeout(120_000) });
    const text = await res.text();
    if (res.status === 200) return { status: 200, parsed: (JSON.parse(text) as { parsed?: unknown }).parsed };
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { code?: string }).code;
    } catch {
      // not problem+json
    }
    return { status: res.status, code };
  } catch (error) {
    return { status: 0, code: error instanceof Error ? error.name : 'error' };
  }
}

/** Runs `work` over `items` with at most `limit` at once, keeping the order of results. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const at = next++;
        results[at] = await work(items[at]);
      }
    }),
  );
  return results;
}

/** POSTs every plan of a round, then polls them all until each is ready or failed, or the round's deadline passes. */
async function prepareRound<P extends DatasetPage>(
  api: ApiClient,
  web: DatasetWeb,
  plans: PreparationPlan<P>[],
  timeoutSeconds: number,
): Promise<Map<string, string>> {
  const outcome = new Map<string, string>();
  for (const plan of plans) {
    const res = await api.request<PreparedRecord>('POST', '/v1/extract/prepared-domains', {
      domain: plan.domain,
      example_urls: plan.examples.map((page) => web.url(page)),
    });
    if (res.status !== 202) outcome.set(plan.domain, `POST answered ${res.status}: ${res.text.slice(0, 200)}`);
  }
  const deadline = performance.now() + timeoutSeconds * 1000;
  let reportedAt = performance.now();
  for (;;) {
    const waiting = plans.filter((plan) => !outcome.has(plan.domain));
    if (waiting.length === 0) return outcome;
    for (const plan of waiting) {
      const res = await api.request<PreparedRecord>('GET', `/v1/extract/prepared-domains/${encodeURIComponent(plan.domain)}`);
      if (res.status === 200 && res.body.status === 'ready') outcome.set(plan.domain, 'ready');
      else if (res.status === 200 && res.body.status === 'failed')
        outcome.set(plan.domain, `failed: ${res.body.failure_reason ?? '(no reason)'}`);
      else if (res.status !== 200) outcome.set(plan.domain, `GET answered ${res.status}`);
    }
    if (performance.now() > deadline) {
      for (const plan of plans.filter((p) => !outcome.has(p.domain))) outcome.set(plan.domain, `not ready after ${timeoutSeconds} s`);
      return outcome;
    }
    if (performance.now() - reportedAt > 10_000) {
      reportedAt = performance.now();
      process.stderr.write(`  ${plans.length - waiting.length}/${plans.length} domains prepared…\n`);
    }
    await new Promise((done) => setTimeout(done, 1_000));
  }
}

interface DatasetRun<P extends DatasetPage> {
  results: { page: P; extracted: Extracted; preparation: string }[];
  /** Extract answers by status and problem code, e.g. `200`, `502 RESP003`. */
  answers: Record<string, number>;
  /** Workers that did not take an extract request, by why (`busy`, `late`): what a `RESP009` came from. */
  notTaken: Record<string, number>;
}

/** The platform of the round under way, stopped when the bench is interrupted so its database and streams do not linger. */
let running: Platform | undefined;
onInterrupt(async () => running?.stop());

/**
 * Every round on a platform of its own (its own database): prepared domains are shared by every
 * tenant and a ready one is not prepared again, so a second round on the same platform would score
 * pages with a preparation that learned from them.
 */
async function runDataset<P extends DatasetPage>(pages: P[], options: ExtractBenchOptions, label: string): Promise<DatasetRun<P>> {
  const web = await startDatasetWeb(pages);
  const plans = planRounds(pages, options.folds);
  const rounds = Math.max(...plans.map((plan) => plan.round)) + 1;
  const run: DatasetRun<P> = { results: [], answers: {}, notTaken: {} };
  try {
    for (let round = 0; round < rounds; round++) {
      const roundPlans = plans.filter((plan) => plan.round === round);
      process.stderr.write(`${label} round ${round + 1}/${rounds}: starting ${options.services.join(', ')}…\n`);
      const platform = await startPlatform(web.hostMap, options);
      running = platform;
      try {
        // Every domain of the round is new to this tenant; every page costs credits.
        const { api_key } = await platform.createTenant({ extract_domains_per_period: 100_000, credits: 1_000_000_000 });
        const api = platform.client(api_key, BENCHMARK_CLIENT);
        process.stderr.write(`${label} round ${round + 1}/${rounds}: preparing ${roundPlans.length} domains…\n`);
        const outcome = await prepareRound(api, web, roundPlans, options.timeoutSeconds);
        const scored = roundPlans.flatMap((plan) => plan.scored);
        process.stderr.write(`${label} round ${round + 1}/${rounds}: extracting ${scored.length} pages…\n`);
        const extracted = await pooled(scored, options.concurrency, (page) => extract(platform, api_key, web.url(page)));
        scored.forEach((page, i) => {
          run.results.push({ page, extracted: extracted[i], preparation: outcome.get(page.domain) ?? 'unknown' });
          const key = `${extracted[i].status}${extracted[i].code ? ` ${extracted[i].code}` : ''}`;
          run.answers[key] = (run.answers[key] ?? 0) + 1;
        });
        const series = await scrapeLabelled(platform.metricsUrl('gateway'), ['trawl_fetch_worker_not_taken_total']);
        for (const [name, value] of Object.entries(series)) {
          const reason = /reason="(\w+)"/.exec(name)?.[1] ?? 'unknown';
          run.notTaken[reason] = (run.notTaken[reason] ?? 0) + value;
        }
      } finally {
        running = undefined;
        await platform.stop();
      }
    }
  } finally {
    await web.close();
  }
  return run;
}

/** Starts a platform (fresh database and NATS prefix) with every dataset host mapped to loopback by `hostMap`. */
async function startPlatform(hostMap: string, options: ExtractBenchOptions): Promise<Platform> {
  const env = { LOG_LEVEL: options.logLevel, ...options.serviceEnv };
  const platform = new Platform('extract-bench', {
    hostMap,
    services: options.services,
    env: {
      ...Object.fromEntries(options.services.map((service) => [service, env])),
      gateway: { ...env, PROXY_MODE_ENABLED: 'false' },
      // The dataset's sites are one local server: preparations need no pause between pages here, and
      // run side by side (the bench measures what is learned, not politeness).
      scheduler: { PREPARE_CONCURRENCY: '8', PREPARE_FETCH_INTERVAL_MS: '0', ...env },
    },
  });
  try {
    await platform.start();
    return platform;
  } catch (error) {
    await platform.stop().catch(() => undefined);
    throw error;
  }
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

const f3 = (value: number | undefined): string => (value === undefined ? '—' : value.toFixed(3));
const prf = (m: Metrics | undefined): string => (m ? `${f3(m.f1)} / ${f3(m.precision)} / ${f3(m.recall)}` : '—');

function productMetrics(
  pages: readonly { truth: ProductPage['truth']; prediction: ProductPrediction }[],
): Record<ProductAttribute, Metrics & { support: number }> {
  const perAttribute = {} as Record<ProductAttribute, TpFpFn[]>;
  const support = {} as Record<ProductAttribute, number>;
  for (const { truth, prediction } of pages) {
    const scored = scoreProductPage(truth, prediction);
    for (const attribute of PRODUCT_ATTRIBUTES) {
      (perAttribute[attribute] ??= []).push(scored[attribute]);
      const value = truth[attribute];
      support[attribute] = (support[attribute] ?? 0) + (value !== undefined && value.length > 0 ? 1 : 0);
    }
  }
  return Object.fromEntries(
    PRODUCT_ATTRIBUTES.map((a) => [a, { ...microMetrics(perAttribute[a] ?? []), support: support[a] ?? 0 }]),
  ) as Record<ProductAttribute, Metrics & { support: number }>;
}

function productReport(
  run: DatasetRun<ProductPage>,
  outputs: ReturnType<typeof loadProductOutputs>,
): { text: string; verdicts: { name: string; value: number; target: number; met: boolean }[]; metrics: unknown } {
  const metrics = productMetrics(
    run.results.map(({ page, extracted }) => ({ truth: page.truth, prediction: productPredictionOf(extracted.parsed) })),
  );
  const rows = PRODUCT_ATTRIBUTES.map((attribute) => [
    attribute,
    String(metrics[attribute].support),
    prf(metrics[attribute]),
    prf(PUBLISHED_PRODUCT.Zyte[attribute]),
    prf(PUBLISHED_PRODUCT.Diffbot[attribute]),
    prf(PUBLISHED_PRODUCT.extruct[attribute]),
  ]);
  const lines = [
    `Product extraction (${PRODUCT_DATASET}: ${run.results.length} pages, ${new Set(run.results.map((r) => r.page.domain)).size} domains). F1 / precision / recall:`,
    table(['attribute', 'support', 'Trawl', 'Zyte (published)', 'Diffbot (published)', 'extruct baseline (published)'], rows),
    "Rules (the benchmark's evaluate.py): one predicted value per attribute (Trawl's field of the same name, first value of a list); price as a decimal number",
    '(a value with a symbol or separators is wrong); the rest exact after trimming; availability read as InStock unless it names an out-of-stock term;',
    'brand, gtin and mpn are annotated but not scored by the benchmark (no published figures).',
  ];
  // The scorer on the dataset's own output files must give the published numbers.
  const checks: string[] = [];
  for (const [system, output] of Object.entries(outputs)) {
    const recomputed = productMetrics(
      run.results.map(({ page }) => ({ truth: page.truth, prediction: (output[page.id] ?? {}) as ProductPrediction })),
    );
    if (run.results.length === Object.keys(output).length) {
      checks.push(
        `${system} ${(['price', 'sku', 'availability'] as const).map((a) => `${a} ${f3(recomputed[a].f1)} (published ${f3(PUBLISHED_PRODUCT[system]?.[a]?.f1)})`).join(', ')}`,
      );
    }
  }
  if (checks.length > 0)
    lines.push('', "Scorer check, the dataset's own output files scored by this bench:", ...checks.map((c) => `  ${c}`));
  const verdicts = Object.entries(PRODUCT_TARGETS).map(([attribute, target]) => {
    const value = metrics[attribute as ProductAttribute].f1;
    return { name: `product ${attribute} F1 > ${target} (extruct baseline)`, value, target, met: value > target };
  });
  return { text: lines.join('\n'), verdicts, metrics };
}

function articleReport(run: DatasetRun<ArticlePage>): {
  text: string;
  verdicts: { name: string; value: number; target: number; met: boolean }[];
  metrics: unknown;
} {
  let fallbacks = 0;
  let exact = 0;
  const perPage = run.results.map(({ page, extracted }) => {
    const { body, fallback } = articleBodyOf(extracted.parsed);
    if (fallback) fallbacks++;
    if (exactTokens(page.articleBody, body)) exact++;
    return shingleMatching(page.articleBody, body);
  });
  const metrics = { ...macroMetrics(perPage), accuracy: run.results.length === 0 ? 0 : exact / run.results.length };
  const rows = [
    ['Trawl extract=auto', prf(metrics), metrics.accuracy.toFixed(3)],
    ...Object.entries(PUBLISHED_ARTICLE).map(([name, m]) => [`${name} (published)`, prf(m), '—']),
  ];
  const text = [
    `Article body (${ARTICLE_DATASET}: ${run.results.length} pages, ${new Set(run.results.map((r) => r.page.domain)).size} domains). F1 / precision / recall:`,
    table(['system', 'body F1 / P / R', 'accuracy'], rows),
    "Rules (the benchmark's evaluate.py): word 4-shingles (Unicode \\w+ tokens), TP/FP/FN normalised per page, precision averaged over pages with a",
    `prediction, recall over pages with a truth, F1 of the two. Body = Trawl's field ${'`body`'} (or article_body, content, text); else its longest text value (${fallbacks} pages).`,
  ].join('\n');
  return {
    text,
    verdicts: [
      {
        name: `article body F1 ≥ ${ARTICLE_BODY_TARGET}`,
        value: metrics.f1,
        target: ARTICLE_BODY_TARGET,
        met: metrics.f1 >= ARTICLE_BODY_TARGET,
      },
    ],
    metrics,
  };
}

function preparationSummary(run: DatasetRun<DatasetPage>): string {
  const outcomes: Record<string, number> = {};
  for (const { preparation } of run.results) {
    const key = preparation.startsWith('failed') ? 'failed' : preparation.startsWith('not ready') ? 'not ready in time' : preparation;
    outcomes[key] = (outcomes[key] ?? 0) + 1;
  }
  const format = (counts: Record<string, number>): string =>
    Object.entries(counts)
      .sort(([, a], [, b]) => b - a)
      .map(([key, n]) => `${key} ${n}`)
      .join(', ');
  const notTaken = Object.keys(run.notTaken).length > 0 ? format(run.notTaken) : 'none';
  return (
    `  scored pages by preparation: ${format(outcomes)}; extract answers: ${format(run.answers)}\n` +
    `  workers that did not take a request (busy: no free slot; late: no accept in time): ${notTaken}`
  );
}

function limitDomains<P extends DatasetPage>(pages: P[], domains: number | undefined): P[] {
  if (domains === undefined) return pages;
  const keep = new Set([...new Set(pages.map((page) => page.domain))].sort().slice(0, domains));
  return pages.filter((page) => keep.has(page.domain));
}

async function main(args: string[]): Promise<number> {
  const options = parseExtractBenchOptions(args);
  // The recipe apply time is measured in this process, as a fetch worker would apply recipes: under
  // the heap settings a worker of this run boots with (its defaults, `--set` on top), from the start,
  // since V8 decides what to pretenure from all the allocation before the measure.
  applyHeapSettings(loadConfig(baseConfigSchema, { ...process.env, ...options.serviceEnv }));
  const dir = datasetsDir(options.datasets);
  const products = options.only === 'article' ? undefined : loadProductDataset(dir);
  const articles = options.only === 'product' ? undefined : loadArticleDataset(dir);
  const missing = [
    ...(options.only !== 'article' && !products ? [PRODUCT_DATASET] : []),
    ...(options.only !== 'product' && !articles ? [ARTICLE_DATASET] : []),
  ];
  if (missing.length > 0) {
    process.stdout.write(
      `extract-bench: no ${missing.join(' and no ')} under ${dir}.\n` +
        'It needs the two public benchmarks by Zyte: "product-extraction-benchmark" (github.com/scrapinghub/product-extraction-benchmark) and\n' +
        '"article-extraction-benchmark" (github.com/scrapinghub/article-extraction-benchmark), cloned side by side into that directory\n' +
        '(--datasets <dir> or TRAWL_DATASETS=<dir>; default ../shared/datasets beside the repository). Skipped.\n',
    );
    if (!products && !articles) return 0;
  }
  const productPages = limitDomains(products ?? [], options.domains);
  const articlePages = limitDomains(articles ?? [], options.domains);
  const sections: string[] = [];
  const verdicts: { name: string; value: number; target: number; met: boolean }[] = [];
  const saved: Record<string, unknown> = {};
  if (productPages.length > 0) {
    const run = await runDataset(productPages, options, 'product');
    const report = productReport(run, loadProductOutputs(dir));
    sections.push(`${report.text}\n${preparationSummary(run)}`);
    verdicts.push(...report.verdicts);
    saved.product = {
      metrics: report.metrics,
      answers: run.answers,
      pages: run.results.map((r) => ({
        id: r.page.id,
        url: r.page.originalUrl,
        preparation: r.preparation,
        status: r.extracted.status,
        code: r.extracted.code,
        prediction: productPredictionOf(r.extracted.parsed),
      })),
    };
  }
  if (productPages.length > 0) {
    const times = await measureApplyTimes(productPages);
    if (times) {
      const line = (label: string, t: Percentiles) =>
        `  ${label}: p50 ${t.p50Ms.toFixed(1)} ms, p95 ${t.p95Ms.toFixed(1)} ms, max ${t.maxMs.toFixed(1)} ms`;
      sections.push(
        [
          `Recipe apply time (applyRecipe, parsing included, on the ${times.pages} product pages of 150–250 KB):`,
          line("warm (each page's median of 14 runs after its first)", times.warm),
          line("cold (each page's first run)", times.cold),
          line('warm, process CPU time (what other load on the machine does not move)', times.warmCpu),
        ].join('\n'),
      );
      verdicts.push(
        {
          name: `recipe applied to a ~200 KB page, warm p95 ≤ ${APPLY_TARGET_MS} ms`,
          value: times.warm.p95Ms,
          target: APPLY_TARGET_MS,
          met: times.warm.p95Ms <= APPLY_TARGET_MS,
        },
        {
          name: `recipe applied to a ~200 KB page, cold p95 ≤ ${APPLY_TARGET_MS} ms`,
          value: times.cold.p95Ms,
          target: APPLY_TARGET_MS,
          met: times.cold.p95Ms <= APPLY_TARGET_MS,
        },
      );
      saved.applyTimes = times;
    }
  }
  if (articlePages.length > 0) {
    const run = await runDataset(articlePages, options, 'article');
    const report = articleReport(run);
    sections.push(`${report.text}\n${preparationSummary(run)}`);
    verdicts.push(...report.verdicts);
    saved.article = {
      metrics: report.metrics,
      answers: run.answers,
      pages: run.results.map((r) => ({
        id: r.page.id,
        url: r.page.originalUrl,
        preparation: r.preparation,
        status: r.extracted.status,
        code: r.extracted.code,
      })),
    };
  }
  const verdictLines = verdicts.map((v) => `  ${v.name}: ${v.value.toFixed(3)} — ${v.met ? 'MET' : 'NOT MET'}`);
  process.stdout.write(`\n${sections.join('\n\n')}\n\nVerdicts:\n${verdictLines.join('\n')}\n`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, 'extract-latest.json');
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), options, datasets: dir, verdicts, ...saved }, null, 2)}\n`);
  process.stdout.write(`\nresults: ${file}\n`);
  // A quality verdict not met is reported, never a failed run (like crawl-bench's 3× target).
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`extract-bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
