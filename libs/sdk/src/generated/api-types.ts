// Generated from the gateway's OpenAPI document by tools/generate-sdk-types.ts: do not edit.
// `npm run sdk:types` writes it again; test/sdk/sdk-types.spec.ts fails when it is out of date.

export interface AddTasksRequest {
  tasks: BatchTask[];
  /** `true` closes the job after these tasks. */
  last_batch?: boolean;
}

export interface BatchTask {
  url: string;
  /** Returned unchanged on every result; need not be unique. */
  external_id?: string | null;
  /** Caller data, at most 8 KiB of JSON. */
  metadata?: Record<string, unknown> | null;
  /** Overrides the job-level keys for this URL only. */
  service_params?: Record<string, unknown> | null;
  method?: "GET" | "POST" | "PUT";
  /** Sent verbatim with a `POST` or `PUT` target; at most 16 KiB. */
  body?: string | null;
}

export interface CaptchaSolver {
  captcha_solver: {
    endpoint: string;
    key_configured: true;
  } | null;
}

export interface CaptchaSolverRequest {
  endpoint: string;
  key: string;
}

/** With `change_tracking=true`: this page against your last version of its URL. */
export interface ChangeTracking {
  status: "new" | "same" | "changed" | "removed";
  /** When the version compared with was fetched. */
  previous_fetched_at?: string;
  /** Unified diff, previous → current, of the Markdown text (of the fields with `extract`); only when `changed`. */
  diff?: string;
}

export interface Crawl {
  crawl_id: string;
  status: "running" | "completed" | "stopped" | "failed";
  stop_reason?: "max_items" | "max_pages" | "user";
  error?: {
    code: "seed_unreachable" | "no_items_found" | "insufficient_credits" | "internal_error";
    detail: string;
  };
  url: string;
  depth?: number;
  max_items: number;
  max_pages: number;
  include_patterns: string[];
  exclude_patterns: string[];
  output_format?: "html";
  sitemap: "include" | "only" | "skip";
  respect_robots: boolean;
  /** Seconds within which a kept copy of a page serves instead of the site (when asked). */
  max_age?: number;
  /** `["links"]` as in the spec; `["links", "sitemap"]` with `sitemap: include`, `["sitemap"]` with `only`. */
  discovery: (("links" | "sitemap")[]);
  /** Whether the sitemaps were read yet (with `sitemap` other than `skip`); `failed`: none could be. */
  sitemap_status?: "pending" | "read" | "failed";
  /** URLs in scope the sitemaps named, before patterns and limits. */
  sitemap_urls: number;
  /** URLs robots.txt kept the crawl from (with `respect_robots`). */
  robots_disallowed: number;
  coverage: {
    pages_fetched: number;
    pages_failed: number;
    items_found: number;
  };
  duplicates_removed: number;
  created_at: string;
  finished_at?: string;
}

export interface CrawlDownloadLine {
  url: string;
  content_status?: "pending" | "fetched" | "failed";
  content?: string;
  /** Crawls with `max_age`: the page came from a kept copy (`hit`, billed 1 credit) or was fetched (`miss`). */
  cache?: "hit" | "miss";
}

export interface CrawlList {
  crawls: Crawl[];
  next_cursor?: string;
}

export interface CrawlPage {
  crawl_id: string;
  status: "running" | "completed" | "stopped" | "failed";
  stop_reason?: "max_items" | "max_pages" | "user";
  error?: {
    code: "seed_unreachable" | "no_items_found" | "insufficient_credits" | "internal_error";
    detail: string;
  };
  url: string;
  depth?: number;
  max_items: number;
  max_pages: number;
  include_patterns: string[];
  exclude_patterns: string[];
  output_format?: "html";
  sitemap: "include" | "only" | "skip";
  respect_robots: boolean;
  /** Seconds within which a kept copy of a page serves instead of the site (when asked). */
  max_age?: number;
  /** `["links"]` as in the spec; `["links", "sitemap"]` with `sitemap: include`, `["sitemap"]` with `only`. */
  discovery: (("links" | "sitemap")[]);
  /** Whether the sitemaps were read yet (with `sitemap` other than `skip`); `failed`: none could be. */
  sitemap_status?: "pending" | "read" | "failed";
  /** URLs in scope the sitemaps named, before patterns and limits. */
  sitemap_urls: number;
  /** URLs robots.txt kept the crawl from (with `respect_robots`). */
  robots_disallowed: number;
  coverage: {
    pages_fetched: number;
    pages_failed: number;
    items_found: number;
  };
  duplicates_removed: number;
  created_at: string;
  finished_at?: string;
  results: CrawlResult[];
  next_cursor: string | null;
}

export interface CrawlResult {
  url: string;
  content_status?: "pending" | "fetched" | "failed";
  content_url?: string;
  /** Crawls with `max_age`: the page came from a kept copy (`hit`, billed 1 credit) or was fetched (`miss`). */
  cache?: "hit" | "miss";
}

export interface CrawlStop {
  crawl_id: string;
  status: "running" | "completed" | "stopped" | "failed";
  stop_reason?: "max_items" | "max_pages" | "user";
  finished_at?: string;
  error?: {
    code: "seed_unreachable" | "no_items_found" | "insufficient_credits" | "internal_error";
    detail: string;
  };
}

export interface CrawlUrlFate {
  /** The URL asked about, as given. */
  url: string;
  /** Its normalised form, under which the crawl deduplicates. */
  normalized_url: string;
  /** `kept`: a result; `duplicate`: the same URL as a result written another way (`result_url`); `start_url`: the seed, fetched but never a result; `excluded`: a pattern drops it (`pattern`); `out_of_scope`: not on the crawl’s site; `over_max_items`: met after `max_items` was reached; `robots_disallowed`: robots.txt disallows it (`respect_robots`); `not_seen`: no page the crawl opened linked to it (yet). */
  fate: "kept" | "duplicate" | "start_url" | "excluded" | "out_of_scope" | "over_max_items" | "robots_disallowed" | "not_seen";
  /** The same, in a sentence. */
  detail: string;
  /** The result it is (`kept`), or is the same as (`duplicate`). */
  result_url?: string;
  /** `excluded`: the exclude pattern it contains; absent when it contains none of the include patterns. */
  pattern?: string;
  /** The page it was a link of, or `sitemap` (`over_max_items`, `robots_disallowed`). */
  found_on?: string;
  /** The fetch of a kept (or start) URL. */
  page?: {
    state: "queued" | "in_flight" | "fetched" | "failed" | "not_fetched";
    /** A failed page’s code: `http_404`, `timeout`, `blocked_address`, `robots_txt`, … */
    error?: string;
  };
}

export interface CreateJobExportRequest {
  /** The run to export (default: the latest). */
  run_id?: string | null;
}

export interface CreateJobInputRequest {
  type: "csv";
  csv: {
    /** Whether the file's first row names the columns. */
    header: boolean;
    /** The field delimiter: one character (default `,`; `\t` for TSV). */
    delimiter?: string;
    /** The quote character: one character (default `"`). */
    quote?: string;
    fields: {
      /** Required. A header name (string) when `csv.header` is true, else a 0-based column index (integer). */
      url: string | number;
      /** A header name (string) when `csv.header` is true, else a 0-based column index (integer). */
      external_id?: string | number;
    };
  };
}

export interface CreateJobRequest {
  type?: "regular" | "scheduled";
  /** `open` takes more tasks later (`POST /v1/jobs/{jobId}/tasks`). */
  status?: "open" | "closed";
  /** Scrape options, the Fetch API's parameters (`js_render`, `premium_proxy`, `proxy_country`, `wait_for`, `response_type`, `custom_headers`, `mode`, …). Scalar switches may be sent as strings (`"true"`). `zenrows_params` (the public Node SDK's name) is taken for it on a job and on a task; both at once is refused; answers say `service_params`. */
  service_params?: Record<string, unknown>;
  /** An uploaded CSV input (`POST /v1/job_inputs`), instead of `tasks`. */
  file_input_id?: string | null;
  /** Required for a `scheduled` job, refused for a `regular` one. */
  schedule?: ScheduleRequest | null;
  webhook?: JobWebhookRequest | null;
  tasks?: BatchTask[] | null;
}

/** An error answer; with `code: csv_invalid_rows`, the bad rows (at most 100 listed) and their count. */
export type CsvInvalidRowsProblem = {
  type: string;
  code: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalid_rows?: {
    /** Line of the file. */
    row: number;
    field: string;
    reason: string;
  }[];
  invalid_row_count?: number;
  [key: string]: unknown;
};

export interface ExtractDomainList {
  domains: {
    domain: string;
    needs_js_render: boolean;
    page_types: PreparedPageType[];
    recipe_version: number;
    ready_at: string;
  }[];
  next_cursor?: string;
}

/** The answer with `css_extractor`: one key per name. */
export type FetchCssExtractorResponse = Record<string, unknown>;

/** The answer with `extract=auto`: `parsed` fields differ per website. */
export type FetchExtractResponse = {
  parsed: Record<string, unknown>;
  html: string;
  change_tracking?: ChangeTracking;
  [key: string]: unknown;
};

/** The answer with `json_response=true`. */
export interface FetchJsonResponse {
  html: string;
  xhr: ({
    url: string;
    body: string;
    status_code: number;
    method: string;
    headers: (Record<string, string | string[]>);
    request_headers: (Record<string, string | string[]>);
    [key: string]: unknown;
  }[]);
  js_instructions_report?: {
    instructions_duration: number;
    instructions_executed: number;
    instructions_succeeded: number;
    instructions_failed: number;
    instructions: {
      instruction: string;
      params: unknown;
      success: boolean;
      duration: number;
    }[];
  };
  screenshot?: {
    data: string;
    type: string;
    width: number;
    height: number;
  };
  change_tracking?: ChangeTracking;
}

/** The answer with `outputs`: one key per asked name. */
export interface FetchOutputsResponse {
  emails?: unknown;
  phone_numbers?: unknown;
  headings?: unknown;
  images?: unknown;
  audios?: unknown;
  videos?: unknown;
  links?: unknown;
  tables?: unknown;
  menus?: unknown;
  hashtags?: unknown;
  metadata?: unknown;
  favicon?: unknown;
  change_tracking?: ChangeTracking;
}

export interface FinalizedSigningKey {
  active_kid: string;
  created_at: string;
}

/** An error answer; with `code: idempotency_key_conflict`, the job that holds the key. */
export type IdempotencyKeyConflictProblem = {
  type: string;
  code: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  /** The job created with this idempotency key: read it to learn what the first request created. */
  job_id?: string;
  [key: string]: unknown;
};

/** An error answer; with `code: invalid_tasks`, the bad tasks (at most 100 listed) and their count. */
export type InvalidTasksProblem = {
  type: string;
  code: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  invalid_tasks?: {
    /** Position in the submitted `tasks` array. */
    index: number;
    /** The field at fault (`url`, `service_params.wait`, …). */
    field: string;
    reason: string;
  }[];
  invalid_task_count?: number;
  [key: string]: unknown;
};

export interface IssuedSigningKey {
  kid: string;
  /** Base64; shown this one time. */
  secret: string;
  created_at: string;
  /** `active` when the account had no key, else `candidate` until finalize. */
  status: "active" | "candidate" | "retired";
}

export interface Job {
  job_id: string;
  type: "regular" | "scheduled";
  status: "open" | "closed";
  service_params: Record<string, unknown>;
  /** The CSV input the tasks came from; `null` for inline tasks. */
  file_input_id: string | null;
  task_count: number;
  /** `ingesting` while the rows of a large submission are written: results may be partial and adding tasks answers 409. */
  ingest_state: "ready" | "ingesting";
  webhook?: JobWebhook;
  schedule?: JobSchedule;
  /** A scheduled job's `schedule.schedule_state`, where the public Node SDK reads it. */
  schedule_state?: "active" | "paused";
  /** A scheduled job's `schedule.next_run_at` while there is one, where the public Node SDK reads it. */
  next_scheduled_run?: string;
  /** The current or most recent run; none before a scheduled job's first firing. */
  latest_run?: JobRun;
  created_at: string;
}

/** Credits (and US dollars) a run of the job's tasks would take. */
export interface JobCostEstimate {
  job_id: string;
  tasks: number;
  credits: {
    min: number;
    max: number;
  };
  cost: {
    min: number;
    max: number;
  };
  tasks_by_tier: (Partial<Record<"basic" | "js_render" | "premium" | "premium_js_render" | "auto", number>>);
}

/** A run's results as one archive, kept 12 hours. */
export interface JobExport {
  export_id: string;
  job_id: string;
  run_id: string;
  format: "tar.gz";
  /** An export is made when it is asked for: it is complete at once. */
  status: "completed";
  /** Downloads the archive with the API key. */
  url: string;
  /** `download.url`, under the name the public Node SDK reads. */
  download_url: string;
  created_at: string;
  expires_at: string;
  /** The same archive by a signed URL. */
  download: {
    /** Signed URL, no API key needed (`curl -O`, browsers); valid until `expires_at`. */
    url: string;
    method: "GET";
    expires_at: string;
  };
}

export interface JobInputSlot {
  file_input_id: string;
  type: "csv";
  csv: {
    header: boolean;
    delimiter: string;
    quote: string;
    fields: {
      url: string | number;
      external_id?: string | number;
    };
  };
  state: "awaiting_upload" | "uploaded" | "used" | "invalid";
  /** Send the file with this request. */
  upload: {
    /** Signed URL, no API key needed; valid until `expires_at`. */
    url: string;
    method: "PUT";
    /** Send exactly these headers with the file. */
    headers: Record<string, string>;
  };
  expires_at: string;
}

export interface JobList {
  jobs: Job[];
  /** Give it as `cursor` for the next page; `null` on the last page. */
  next_cursor: string | null;
}

/** One execution of a job. */
export interface JobRun {
  run_id: string;
  /** Ordinal of the run in its job, from 1. */
  run_sequence: number;
  /** What started the run. */
  kind: "initial" | "rerun" | "retry_failed" | "scheduled";
  status: "queued" | "running" | "paused" | "completed" | "stopped" | "failed" | "deleted";
  stats: RunStats;
  /** A failed run only. */
  failure_reason?: string;
  /** A failed run only. */
  failure_detail?: string;
  created_at: string;
  started_at?: string;
  finished_at?: string;
}

/** Credits the ledger holds for one run, by tier, and their cost in US dollars. */
export interface JobRunCost {
  job_id: string;
  run_id: string;
  run_status: "queued" | "running" | "paused" | "completed" | "stopped" | "failed" | "deleted";
  credits: number;
  cost: number;
  by_tier: {
    /** The tier the tasks were billed at (`basic`, `js_render`, `premium`, `premium_js_render`). */
    tier: string;
    tasks: number;
    credits: number;
    cost: number;
  }[];
}

export interface JobRunList {
  runs: JobRun[];
  /** Give it as `cursor` for the next page; `null` on the last page. */
  next_cursor: string | null;
}

export interface JobSchedule {
  rate?: {
    every: number;
    unit: "minute" | "hour" | "day";
  };
  calendar?: {
    times_of_day: string[];
    cadence: {
      weekly: {
        days: (("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[]);
      };
    };
  };
  /** Local date and time `YYYY-MM-DDTHH:MM` in `timezone`. */
  at?: string;
  timezone?: string;
  schedule_state: "active" | "paused";
  /** `null` while paused, or once a one-shot schedule has fired. */
  next_run_at: string | null;
  last_firing?: ScheduleFiring;
}

export interface JobWebhook {
  url: string;
  signature: boolean;
}

export interface JobWebhookRequest {
  /** A public `https` URL. */
  url: string;
  /** Sign deliveries with the account's active signing key. */
  signature?: boolean;
}

export interface JobWithAddedTasks {
  job_id: string;
  type: "regular" | "scheduled";
  status: "open" | "closed";
  service_params: Record<string, unknown>;
  /** The CSV input the tasks came from; `null` for inline tasks. */
  file_input_id: string | null;
  task_count: number;
  /** `ingesting` while the rows of a large submission are written: results may be partial and adding tasks answers 409. */
  ingest_state: "ready" | "ingesting";
  webhook?: JobWebhook;
  schedule?: JobSchedule;
  /** A scheduled job's `schedule.schedule_state`, where the public Node SDK reads it. */
  schedule_state?: "active" | "paused";
  /** A scheduled job's `schedule.next_run_at` while there is one, where the public Node SDK reads it. */
  next_scheduled_run?: string;
  /** The current or most recent run; none before a scheduled job's first firing. */
  latest_run?: JobRun;
  created_at: string;
  tasks_added: number;
  /** `tasks_added`, under the name the public Node SDK reads. */
  accepted_tasks: number;
  /** `status`, under the name the public Node SDK reads. */
  job_status: "open" | "closed";
}

export interface MapLink {
  url: string;
  /** Where the URL was found first: a sitemap, or the page. */
  source: "sitemap" | "page";
  /** The sitemap's `<lastmod>`, as written. */
  lastmod?: string;
  /** The text of the first link to it on the page. */
  title?: string;
}

export interface MapRequest {
  /** Public http or https URL of the site, at most 2,048 characters. */
  url: string;
  /** Words to look for: only links whose URL or link text holds one of them are answered, most relevant first. */
  search?: string | null;
  /** Most links answered (default 5,000). */
  limit?: number | null;
  /** Also answer links on the site's other subdomains (default false: the URL's host only, `www.` or not). */
  include_subdomains?: boolean | null;
  /** `include` (default): sitemaps and the links of the page; `only`: sitemaps alone; `skip`: the links of the page alone. */
  sitemap?: ("include" | "only" | "skip") | null;
  /** Time for the whole map, in ms (default 30,000); what is found by then is answered, with `complete: false`. */
  timeout_ms?: number | null;
}

export interface MapResult {
  /** The URL mapped, as given. */
  url: string;
  /** Normalised and deduplicated as a crawl does; the page and its links first, then each sitemap’s in the order the sitemaps were found; by relevance with `search`. */
  links: MapLink[];
  /** Distinct links found (matching `search`, when given); more than `links` when `limit` cut them. */
  found: number;
  /** False when the time ran out or a size bound stopped reading before every source was read. */
  complete: boolean;
  /** What was read to make the map. */
  sources: {
    robots_txt: "read" | "missing" | "failed" | "skipped";
    sitemaps_read: string[];
    sitemaps_failed: {
      url: string;
      reason: string;
    }[];
    /** In-scope links on the page (0 with `sitemap: only`). */
    page_links: number;
  };
}

/** A JSON-RPC 2.0 message of the Model Context Protocol (streamable HTTP transport). */
export type McpMessage = {
  jsonrpc: "2.0";
  [key: string]: unknown;
};

/** This document (OpenAPI 3.1). */
export type OpenApiDocument = {
  openapi: string;
  info: {
    title: string;
    version: string;
    [key: string]: unknown;
  };
  paths: Record<string, unknown>;
  [key: string]: unknown;
};

export interface PrepareDomainRequest {
  /** The domain to prepare: a host name such as `www.shop.example`, or a URL of it. */
  domain: string;
  /** Pages of interest on the domain (product pages, articles…): the preparation learns from them first. At most 20, each an http(s) URL of the domain. */
  example_urls?: string[] | null;
}

export interface PreparedDomain {
  /** The registrable domain prepared. */
  domain: string;
  /** `queued` (waiting for a preparer), `preparing`, `ready` (Extract serves it), `failed` (see `failure_reason`). A domain prepared again is `preparing` while `served` stays true. */
  status: "queued" | "preparing" | "ready" | "failed";
  /** Whether `extract=auto` serves the domain now. */
  served: boolean;
  progress: {
    pages_fetched: number;
    pages_analysed: number;
  };
  /** Its pages show their data only once rendered: send `js_render=true` with `extract=auto`. */
  needs_js_render: boolean;
  page_types: PreparedPageType[];
  recipe_version?: number;
  failure_reason?: string;
  requested_at: string;
  ready_at?: string;
  failed_at?: string;
}

export interface PreparedPageType {
  /** What the pages are, e.g. `product`, `listing`, `article`. */
  name: string;
  /** Field names `parsed` may hold for such a page; stable, only ever added to. */
  fields: string[];
}

/** An error answer (RFC 9457), served as `application/problem+json`. */
export type Problem = {
  type: string;
  /**
   * Trawl's stable error code: what clients branch on. By status:
   *
   * - 400 `callback_url_must_be_https`: Webhook URL must be https
   * - 400 `csv_column_missing`: CSV column missing
   * - 400 `csv_invalid_rows`: Invalid CSV rows
   * - 400 `csv_malformed`: Malformed CSV
   * - 400 `forbidden_domain`: Domain forbidden
   * - 400 `invalid_cursor`: Invalid cursor
   * - 400 `invalid_domain`: Invalid domain
   * - 400 `invalid_example_url`: Invalid example URL
   * - 400 `invalid_parameter`: Invalid parameter
   * - 400 `invalid_request`: Invalid request
   * - 400 `invalid_tasks`: Invalid tasks
   * - 400 `REQS001`: Domain forbidden
   * - 400 `REQS002`: Domain needs JavaScript rendering or premium proxies
   * - 400 `REQS004`: Invalid parameters or URL
   * - 400 `REQS006`: CAPTCHA solver key invalid
   * - 400 `RESP004`: Invalid css_extractor
   * - 400 `RESP008`: Target TLS certificate or configuration error
   * - 400 `unknown_parameter`: Unknown parameter
   * - 400 `webhook_signing_requires_active_key`: Webhook signing requires an active key
   * - 401 `AUTH001`: API key missing
   * - 401 `AUTH002`: API key malformed
   * - 401 `AUTH003`: API key not found
   * - 401 `unauthorized`: Unauthorized
   * - 402 `AUTH004`: Usage exceeded
   * - 402 `AUTH005`: API key expired
   * - 402 `AUTH010`: Feature not in plan
   * - 402 `AUTH011`: No active subscription
   * - 402 `AUTH012`: Product not allowed
   * - 403 `AUTH009`: E-mail not verified
   * - 403 `BLK0001`: Address blocked
   * - 403 `REQS007`: Extract not prepared for this domain
   * - 403 `upload_signature_invalid`: Upload URL signature invalid
   * - 403 `upload_url_expired`: Upload URL expired
   * - 404 `api_key_not_found`: API key not found
   * - 404 `content_not_found`: Content not found
   * - 404 `crawl_not_found`: Crawl not found
   * - 404 `export_not_found`: Export not found
   * - 404 `file_input_not_found`: File input not found
   * - 404 `job_not_found`: Job not found
   * - 404 `not_found`: Not found
   * - 404 `prepared_domain_not_found`: Prepared domain not found
   * - 404 `RESP002`: Target page not found
   * - 404 `RESP007`: Target domain could not be resolved
   * - 404 `run_not_found`: Run not found
   * - 404 `task_not_found`: Task not found
   * - 404 `tenant_not_found`: Tenant not found
   * - 404 `webhook_not_found`: Webhook not found
   * - 405 `REQS005`: Method not allowed
   * - 409 `api_key_name_taken`: API key name taken
   * - 409 `api_key_revoked`: API key revoked
   * - 409 `file_input_already_uploaded`: File input already uploaded
   * - 409 `file_input_not_uploaded`: File input not uploaded
   * - 409 `file_input_upload_in_progress`: Upload in progress
   * - 409 `file_input_used`: File input already used
   * - 409 `idempotency_key_conflict`: Idempotency key already used
   * - 409 `idempotency_request_in_flight`: Request in flight
   * - 409 `job_closed`: Job closed
   * - 409 `job_ingesting`: Job tasks still being written
   * - 409 `job_not_scheduled`: Job not scheduled
   * - 409 `no_key_rotation_in_progress`: No key rotation in progress
   * - 409 `no_run_in_flight`: No run in flight
   * - 409 `nothing_to_retry`: Nothing to retry
   * - 409 `run_in_flight`: A run is in flight
   * - 409 `run_not_finished`: Run not finished
   * - 409 `task_has_no_content`: Task has no content
   * - 410 `export_expired`: Export expired
   * - 410 `file_input_expired`: File input expired
   * - 410 `result_url_expired`: Result URL expired
   * - 413 `csv_too_large`: CSV file too large
   * - 413 `csv_too_many_rows`: Too many CSV rows
   * - 413 `payload_too_large`: Payload too large
   * - 413 `RESP005`: Response too large
   * - 415 `unsupported_media_type`: Unsupported media type
   * - 415 `upload_not_csv`: Upload must be text/csv
   * - 422 `export_too_large`: Export too large
   * - 422 `idempotency_key_reused`: Idempotency key reused
   * - 422 `invalid_parameter`: Invalid parameter
   * - 422 `invalid_start_url`: Invalid start URL
   * - 422 `invalid_url`: Invalid URL
   * - 422 `RESP001`: Content could not be obtained
   * - 422 `site_unreachable`: Site unreachable
   * - 424 `RESP006`: CAPTCHA solver failed
   * - 429 `AUTH006`: Concurrency limit reached
   * - 429 `AUTH008`: Rate limit reached
   * - 429 `extract_domain_quota_exceeded`: New domains allowance reached
   * - 429 `quota_exceeded`: Too many active jobs
   * - 429 `too_many_crawls`: Too many crawls
   * - 429 `too_many_requests`: Too many failed authentications
   * - 500 `CTX0001`: Request cancelled by the client
   * - 500 `ERR0000`: Unexpected internal error
   * - 500 `ERR0001`: Unknown internal error
   * - 500 `internal_error`: Internal error
   * - 502 `RESP003`: The URL could not be automatically parsed
   * - 503 `map_failed`: Map failed
   * - 503 `no_capacity`: All capacity busy
   * - 503 `RESP009`: All capacity busy
   * - 503 `secrets_unavailable`: Secrets unavailable
   * - 503 `service_unavailable`: Service unavailable
   * - 503 `signing_unavailable`: Webhook signing unavailable
   * - 503 `transfers_busy`: Too many file transfers
   * - 504 `CTX0002`: Operation exceeded the maximum allowed time
   */
  code: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [key: string]: unknown;
};

export interface RetryFailedRequest {
  /** Also re-run the tasks the latest run never finished. */
  include_not_started?: boolean;
}

/** Counts of a run's tasks; `completed` is always `successful + failed`. */
export interface RunStats {
  total: number;
  completed: number;
  successful: number;
  failed: number;
  spend: {
    credits: number;
    /** US dollars, at the price of each billing (a later price change rewrites nothing). */
    cost: number;
  };
}

/** A due time of the schedule: the run it started, or why it started none. */
export type ScheduleFiring = {
  due_at: string;
  fired_at: string;
  status: "started";
  run_id?: string;
} | {
  due_at: string;
  fired_at: string;
  status: "skipped";
  reason: "missed" | "run_in_flight" | "quota_exceeded" | "job_unavailable";
  detail: string;
};

export interface ScheduleFiringList {
  firings: ScheduleFiring[];
  /** Give it as `cursor` for the next page; `null` on the last page. */
  next_cursor: string | null;
}

/** Exactly one of `rate`, `calendar`, `at`; `timezone` (IANA name) with `calendar` and `at`. */
export interface ScheduleRequest {
  rate?: {
    every: number;
    unit: string;
  } | null;
  calendar?: {
    times_of_day: string[];
    cadence: {
      weekly: {
        days: string[];
      };
    };
  } | null;
  at?: string | null;
  timezone?: string | null;
  schedule_state?: ("active" | "paused") | null;
}

export interface ScheduleStateRequest {
  schedule_state: "active" | "paused";
}

export interface SigningKeyList {
  active_kid: string | null;
  candidate_kid: string | null;
  /** Newest first. */
  keys: ({
    kid: string;
    status: "active" | "candidate" | "retired";
    created_at: string;
  }[]);
  /** The active key, as the public Node SDK reads it. */
  active?: {
    kid: string;
    created_at: string;
  };
  /** The staged key, as the public Node SDK reads it. */
  candidate?: {
    kid: string;
    created_at: string;
  };
}

export interface StartCrawlRequest {
  /** Public http or https start URL, at most 2,048 characters. */
  url: string;
  /** Link depth to follow; unlimited when left out. */
  depth?: number | null;
  /** URLs to keep before the crawl stops (default 100). */
  max_items?: number | null;
  /** Pages to fetch before the crawl stops (default 100). */
  max_pages?: number | null;
  /** A URL is kept (and opened) only if it contains one of these texts. */
  include_patterns?: string[] | null;
  /** A URL containing any of these texts is dropped. */
  exclude_patterns?: string[] | null;
  /** `html`: the HTML of each kept page is fetched too. */
  output_format?: "html" | null;
  /** `skip` (default): links only, as the spec's crawl; `include`: the site's sitemaps seed the crawl too (robots.txt `Sitemap:` lines, else `/sitemap.xml`); `only`: the sitemaps' URLs alone, no link is followed. */
  sitemap?: ("include" | "only" | "skip") | null;
  /** Skip the URLs the site's robots.txt disallows (counted in `robots_disallowed`) and keep its `Crawl-delay` between pages (default false). */
  respect_robots?: boolean | null;
  /** Seconds: a page you fetched within this time (this or another crawl, same options) is taken from its kept copy instead of the site, at 1 credit; fetched pages are kept. Left out: every page is fetched. */
  max_age?: number | null;
}

export interface StartedRun {
  run_id: string;
  /** Ordinal of the run in its job, from 1. */
  run_sequence: number;
  /** What started the run. */
  kind: "initial" | "rerun" | "retry_failed" | "scheduled";
  status: "queued" | "running" | "paused" | "completed" | "stopped" | "failed" | "deleted";
  stats: RunStats;
  /** A failed run only. */
  failure_reason?: string;
  /** A failed run only. */
  failure_detail?: string;
  created_at: string;
  started_at?: string;
  finished_at?: string;
  job_id: string;
  latest_run: JobRun;
  /** Tasks queued to run again. */
  retried_tasks: number;
  /** Successful results carried over from the run retried (not billed again). */
  inherited_tasks: number;
}

export interface SubscriptionDetails {
  usage_percent: number;
  period_started_at: string;
  period_ends_at: string;
  credits_total: number;
  credits_used: number;
  credits_left: number;
  concurrency_limit: number;
  concurrency_in_use: number;
  concurrency_remaining: number;
  rate_limit_per_minute: number;
  subscription_status: "active" | "none" | "cancelled";
  features: (("js_render" | "premium_proxy" | "proxy_mode")[]);
  products: (("fetch" | "crawl" | "batch" | "extract")[]);
  active_jobs: number;
  max_active_jobs: number;
}

export interface TaskHistory {
  events: ({
    /** The dispatch this was, from 1 (a claim handed back unrun is not one). */
    attempt: number;
    started_at?: string;
    ended_at: string;
    outcome: "succeeded" | "failed" | "lease_expired";
    error?: {
      code: string;
      detail: string;
    };
    /** Credits billed for the attempt, and their cost at today's price. */
    spend: {
      credits: number;
      cost: number;
    };
  }[]);
}

export interface TaskResult {
  /** Position of the task in its job, from 1. */
  seq: number;
  /** The task in the job's task paths (`/v1/jobs/{job_id}/tasks/{task_id}/content`): `seq` as a string, the same in every run. */
  task_id: string;
  /** The run this result is of. */
  run_id: string;
  url: string;
  method: "GET" | "POST" | "PUT";
  external_id: string | null;
  metadata?: Record<string, unknown>;
  status: "queued" | "in_progress" | "successful" | "failed";
  /** A result retry-failed carried over from the run it retried (not billed again). */
  carried_over?: true;
  /** The target's HTTP status. */
  status_code?: number;
  /** The format of `content`: `html`, `json`, `markdown`, `plaintext`, `pdf`, `png`, `jpeg`. */
  output_format?: string;
  content_type?: string;
  content?: string;
  /** How `content` is written: text as is, anything else in base64. */
  encoding?: "utf8" | "base64";
  error?: {
    code: string;
    detail: string;
  };
  credits: number;
  /** With `max_age`: `hit` when a kept copy answered (billed 1 credit), `miss` when the page was fetched. */
  cache?: "hit" | "miss";
  /** With `change_tracking`: the page against your last version of its URL (`new`, `same`, `changed`, `removed`). Ask the task's content with `json_response=true` for the diff. */
  change_status?: "new" | "same" | "changed" | "removed";
  finished_at?: string;
  /** A successful result's content as the target answered it, by a signed URL (no API key needed), valid 12 hours from this page's reading. */
  result_url?: string;
}

export interface TaskResultsPage {
  job_id: string;
  /** The run the results are of; absent when the job has no run yet. */
  run?: JobRun;
  results: TaskResult[];
  /** Give it as `cursor` for the next page; `null` on the last page. */
  next_cursor: string | null;
}

export interface UploadedJobInput {
  file_input_id: string;
  state: "awaiting_upload" | "uploaded" | "used" | "invalid";
  /** Data rows taken (the tasks of the job that uses the input). */
  rows: number;
  expires_at: string;
}

export interface WebhookDelivery {
  /** The `X-Service-Event-Id` of every attempt. */
  event_id: string;
  event_type: "run.completed" | "run.failed" | "webhook.test";
  run_id: string;
  url: string;
  signed: boolean;
  status: "pending" | "delivered" | "failed";
  created_at: string;
  next_attempt_at: string | null;
  finished_at: string | null;
  attempts: ({
    attempt: number;
    at: string;
    status_code: number | null;
    error: string | null;
    elapsed_ms: number;
  }[]);
}

export interface WebhookDeliveryList {
  deliveries: WebhookDelivery[];
  /** Give it as `cursor` for the next page; `null` on the last page. */
  next_cursor: string | null;
}

export interface WebhookTestRequest {
  /** A public `https` URL. */
  url: string;
  /** Sign the test like real deliveries (default false). */
  signature?: boolean | null;
}

export interface WebhookTestResult {
  /** True only for a 2xx answer. */
  delivered: boolean;
  event_id: string;
  /** The receiver's status; `null` when no HTTP answer came. */
  status_code: number | null;
  elapsed_ms: number;
  /** Why it failed: `http_3xx:<status>`, `http_4xx:<status>`, `http_5xx:<status>`, `timeout`, `connection_refused`, `connection_failed`, `tls_error`, `dns_failure`, `egress_refused`, `https_required`. */
  error?: string;
}

/** Query parameters of `GET /v1/`. */
export interface FetchPageQuery {
  /** The page to fetch: an absolute http or https URL, URL-encoded. */
  url: string;
  /** Load the page in a browser (5 credits; 25 with `premium_proxy`). */
  js_render?: boolean;
  /** Go through a premium (residential) proxy (10 credits; 25 with `js_render`). */
  premium_proxy?: boolean;
  /** ISO 3166-1 alpha-2 country of the premium proxy; needs `premium_proxy=true` or `mode=auto`. */
  proxy_country?: string;
  /** Adaptive stealth: the service picks the cheapest configuration that passes; not with `js_render`/`premium_proxy`. */
  mode?: "auto";
  /** Keeps the same egress IP for 10 minutes from its first use. */
  session_id?: number;
  /** A JSON array of one-key browser instructions (`click`, `wait_for`, `fill`, …), run in order; needs `js_render`. */
  js_instructions?: string;
  /** A CSS selector (or XPath starting `//`) to wait for; needs `js_render`. */
  wait_for?: string;
  /** Milliseconds to wait after the page loaded; needs `js_render`. */
  wait?: number;
  /** Resource types the browser does not load, comma-separated, or `none`; needs `js_render`. */
  block_resources?: string;
  /** Answer JSON `{html, xhr, js_instructions_report?, screenshot?}` instead of the page. */
  json_response?: boolean;
  /** A JSON object of names to CSS selectors (` @attr` suffix for an attribute); answers JSON keyed by name. */
  css_extractor?: string;
  /** The page as Markdown, plain text or PDF (`pdf` needs `js_render`). */
  response_type?: "markdown" | "plaintext" | "pdf";
  /** Data to extract, comma-separated, or `*`; answers JSON keyed by output name. */
  outputs?: string;
  /** Answer a screenshot of the viewport; needs `js_render`. */
  screenshot?: boolean;
  /** Answer a screenshot of the whole page; needs `js_render`. */
  screenshot_fullpage?: boolean;
  /** Answer a screenshot of this element; needs `js_render`. */
  screenshot_selector?: string;
  /** Image format of the screenshot (default `png`). */
  screenshot_format?: "png" | "jpeg";
  /** JPEG quality; needs `screenshot_format=jpeg`. */
  screenshot_quality?: number;
  /** The device the browser presents as. */
  device?: "desktop" | "mobile";
  /** Browser window width in pixels; needs `js_render`. */
  window_width?: number;
  /** Browser window height in pixels; needs `js_render`. */
  window_height?: number;
  /** Answer the target's failing status and body instead of the service's error. */
  original_status?: boolean;
  /** Target statuses answered with the target's body (and billed), comma-separated. */
  allowed_status_codes?: string;
  /** Forward the caller's request headers to the target. */
  custom_headers?: boolean;
  /** Compare the page with the last version of this URL you fetched with `change_tracking`: `X-Trawl-Change-Status` (`new`, `same`, `changed`, `removed`) and `X-Trawl-Previous-Fetched-At`; a JSON answer (`json_response`, `outputs`, `css_extractor`, `extract`) also carries `change_tracking` with the diff of the Markdown text (of the fields with `extract`). */
  change_tracking?: boolean;
  /** Seconds: answer from a copy of the same GET request (URL, headers, every option) fetched for you within this time, marked `X-Trawl-Cache: hit` with its `Age`, at 1 credit; otherwise fetch and keep a copy. 0 or absent: always fetch. */
  max_age?: number;
  /** Deprecated: same as `extract=auto`. */
  autoparse?: boolean;
  /** Structured extraction for a prepared domain: answers JSON `{parsed, html}` (beta). */
  extract?: "auto";
}

/** Query parameters of `POST /v1/`. */
export type FetchPageWithPostQuery = FetchPageQuery;

/** Query parameters of `PUT /v1/`. */
export type FetchPageWithPutQuery = FetchPageQuery;

/** Query parameters of `GET /v1/extract/domains`. */
export interface ListExtractDomainsQuery {
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Domains per page, 1 to 1,000 (default 100). */
  limit?: number;
}

/** Query parameters of `GET /v1/crawls`. */
export interface ListCrawlsQuery {
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Crawls per page, 1 to 100 (default 20). */
  limit?: number;
}

/** Query parameters of `GET /v1/crawls/{crawlId}`. */
export interface GetCrawlQuery {
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Results per page, 1 to 10,000 (default 1,000). */
  limit?: number;
}

/** Query parameters of `GET /v1/crawls/{crawlId}/urls`. */
export interface GetCrawlUrlQuery {
  /** The URL to ask about (http or https; any form the crawl would meet it in). */
  url: string;
}

/** Query parameters of `GET /v1/crawls/{crawlId}/contents/{contentId}`. */
export interface GetCrawlContentQuery {
  /** `true` answers the page as a file to save. */
  download?: boolean;
}

/** Query parameters of `GET /v1/jobs`. */
export interface ListJobsQuery {
  status?: "open" | "closed";
  type?: "regular" | "scheduled";
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Items per page (default 20). */
  limit?: number;
}

/** Query parameters of `GET /v1/jobs/{jobId}/results`. */
export interface ListTaskResultsQuery {
  /** `successful` keeps successful tasks only. */
  status?: "successful";
  /** The run to read (default: the latest). */
  run_id?: string;
  /** Only tasks whose `change_tracking` verdict is one of these, comma-separated (new, same, changed, removed): `changed,removed` lists what a monitor's run found. */
  change_status?: string;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Results per page (default 1000). */
  limit?: number;
}

/** Query parameters of `GET /v1/jobs/{jobId}/runs/{runId}/results`. */
export interface ListRunTaskResultsQuery {
  /** `successful` keeps successful tasks only. */
  status?: "successful";
  /** Only tasks whose `change_tracking` verdict is one of these, comma-separated (new, same, changed, removed): `changed,removed` lists what a monitor's run found. */
  change_status?: string;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Results per page (default 1000). */
  limit?: number;
}

/** Query parameters of `GET /downloads/task_contents/{tenantId}/{runId}/{taskId}`. */
export interface DownloadSignedTaskContentQuery {
  /** Expiry of the URL, as signed. */
  expires: string;
  /** Signature of the method, path and `expires`. */
  signature: string;
}

/** Query parameters of `GET /v1/jobs/{jobId}/runs`. */
export interface ListJobRunsQuery {
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Items per page (default 20). */
  limit?: number;
}

/** Query parameters of `POST /v1/jobs/{jobId}/rerun`. */
export interface RerunJobQuery {
  /** `failed`: as `POST …/retry-failed`; `failed,pending`: with `include_not_started`. Without it, every task runs again. */
  status?: "failed" | "failed,pending";
}

/** Query parameters of `GET /v1/jobs/{jobId}/schedule/firings`. */
export interface ListScheduleFiringsQuery {
  /** `skipped` keeps the due times that started no run. */
  status?: "started" | "skipped";
  /** The `next_cursor` of the previous page. */
  cursor?: string;
  /** Items per page (default 20). */
  limit?: number;
}

/** Query parameters of `GET /downloads/job_exports/{tenantId}/{fileName}`. */
export type DownloadSignedJobExportQuery = DownloadSignedTaskContentQuery;

/** Query parameters of `HEAD /downloads/job_exports/{tenantId}/{fileName}`. */
export type HeadSignedJobExportQuery = DownloadSignedTaskContentQuery;

/** Query parameters of `PUT /uploads/job_inputs/{inputId}`. */
export type UploadJobInputQuery = DownloadSignedTaskContentQuery;

/** Query parameters of `GET /v1/jobs/{jobId}/webhook/deliveries`. */
export type ListWebhookDeliveriesQuery = ListJobRunsQuery;

/** The successful answer of each operation, by operationId. */
export interface OperationResponses {
  fetchPage: FetchJsonResponse | FetchExtractResponse | FetchCssExtractorResponse | FetchOutputsResponse | unknown;
  fetchPageWithPost: FetchJsonResponse | FetchExtractResponse | FetchCssExtractorResponse | FetchOutputsResponse | unknown;
  fetchPageWithPut: FetchJsonResponse | FetchExtractResponse | FetchCssExtractorResponse | FetchOutputsResponse | unknown;
  fetchWithDelete: never;
  fetchWithPatch: never;
  fetchWithHead: never;
  fetchWithOptions: never;
  prepareDomain: PreparedDomain;
  getPreparedDomain: PreparedDomain;
  listExtractDomains: ExtractDomainList;
  mapSite: MapResult;
  startCrawl: Crawl;
  listCrawls: CrawlList;
  getCrawl: CrawlPage;
  getCrawlUrl: CrawlUrlFate;
  downloadCrawl: unknown;
  getCrawlContent: unknown;
  stopCrawl: CrawlStop;
  createJob: Job;
  listJobs: JobList;
  getJob: Job;
  deleteJob: void;
  listTaskResults: TaskResultsPage;
  listRunTaskResults: TaskResultsPage;
  getTaskContent: unknown;
  getRunTaskContent: unknown;
  getTaskHistory: TaskHistory;
  getRunTaskHistory: TaskHistory;
  downloadSignedTaskContent: unknown;
  addTasks: JobWithAddedTasks;
  closeJob: Job;
  listJobRuns: JobRunList;
  getJobRun: JobRun;
  deleteJobRun: void;
  stopJobRun: JobRun;
  cancelJobRun: JobRun;
  pauseJobRun: JobRun;
  resumeJobRun: JobRun;
  rerunJob: StartedRun;
  retryFailedTasks: StartedRun;
  estimateJobCost: JobCostEstimate;
  getJobRunCost: JobRunCost;
  replaceJobSchedule: Job;
  setJobScheduleState: Job;
  listScheduleFirings: ScheduleFiringList;
  createJobExport: JobExport;
  createRunExport: JobExport;
  getRunExport: JobExport;
  downloadJobExport: unknown;
  headJobExport: void;
  downloadSignedJobExport: unknown;
  headSignedJobExport: void;
  createJobInput: JobInputSlot;
  uploadJobInput: UploadedJobInput;
  getJobWebhook: JobWebhook;
  setJobWebhook: Job;
  removeJobWebhook: void;
  listWebhookDeliveries: WebhookDeliveryList;
  rotateSigningKey: IssuedSigningKey;
  cancelSigningKeyRotation: void;
  finalizeSigningKeyRotation: FinalizedSigningKey;
  listSigningKeys: SigningKeyList;
  sendWebhookTest: WebhookTestResult;
  getSubscriptionDetails: SubscriptionDetails;
  getCaptchaSolver: CaptchaSolver;
  setCaptchaSolver: CaptchaSolver;
  removeCaptchaSolver: void;
  mcpMessage: McpMessage | void;
  getOpenApiDocument: OpenApiDocument;
}
