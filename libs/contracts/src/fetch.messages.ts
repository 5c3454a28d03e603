import { z } from 'zod';
import { extractRecipeRefV1 } from './extract.messages';
import { OUTPUT_NAMES, RESPONSE_TYPES, SCREENSHOT_FORMATS } from './output-formats';

/**
 * The Fetch API between the gateway and the fetch workers (ARCHITECTURE §2 "Fetch (sync)").
 *
 * The gateway parses and validates the caller's query parameters into `FetchOptionsV1` (so a worker
 * never sees a combination the API refuses), sends a `FetchRequestV1` over the streamed request/reply
 * of `@trawl/messaging`, and gets back a `FetchReplyV1` head followed by the answer body. The worker
 * decides the whole answer (status, content type, body, error code, billed tier); the gateway adds
 * the usage headers, bills the tier and sends it.
 */

/** Resource types the browser can be told not to load (fetch-details "block_resources"). */
export const BLOCKABLE_RESOURCES = [
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'texttrack',
  'xhr',
  'fetch',
  'eventsource',
  'websocket',
  'manifest',
  'other',
] as const;
export type BlockableResource = (typeof BLOCKABLE_RESOURCES)[number];

export const WAIT_EVENTS = ['networkidle', 'networkalmostidle', 'load', 'domcontentloaded'] as const;
export type WaitEvent = (typeof WAIT_EVENTS)[number];

const selector = z.string().min(1);
const pair = z.tuple([selector, z.string()]);
const triple = z.tuple([selector, selector, z.string()]);

/**
 * One step of `js_instructions`: a one-key object, as clients send it (fetch-details
 * "js_instructions"). Selectors starting with `//` are XPath. `wait` is in ms, scrolls in pixels.
 */
export const jsInstructionV1 = z.union([
  z.strictObject({ click: selector }),
  z.strictObject({ wait_for: selector }),
  z.strictObject({ check: selector }),
  z.strictObject({ uncheck: selector }),
  z.strictObject({ wait: z.number().int().min(0).max(30_000) }),
  z.strictObject({ fill: pair }),
  z.strictObject({ select_option: pair }),
  z.strictObject({ scroll_y: z.number().int() }),
  z.strictObject({ scroll_x: z.number().int() }),
  z.strictObject({ evaluate: z.string().min(1) }),
  z.strictObject({ wait_event: z.enum(WAIT_EVENTS) }),
  z.strictObject({ frame_click: pair }),
  z.strictObject({ frame_wait_for: pair }),
  z.strictObject({ frame_check: pair }),
  z.strictObject({ frame_uncheck: pair }),
  z.strictObject({ frame_fill: triple }),
  z.strictObject({ frame_select_option: triple }),
  z.strictObject({ frame_evaluate: pair }),
]);
export type JsInstructionV1 = z.infer<typeof jsInstructionV1>;

/** `change_tracking`'s verdicts: first version, the same text, another text, or gone (404/410) since the last. */
export const CHANGE_STATUSES = ['new', 'same', 'changed', 'removed'] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

/** `max_age`'s answers: from a kept copy, or fetched now (and kept). */
export const CACHE_STATUSES = ['hit', 'miss'] as const;
export type CacheStatus = (typeof CACHE_STATUSES)[number];

/** Longest `max_age` a request may ask: 30 days (an installation keeps copies for less: `PAGE_COPY_TTL_MS`). */
export const MAX_AGE_SECONDS = 30 * 24 * 3600;

export const screenshotOptionsV1 = z.object({
  /** The whole page instead of the viewport. */
  fullpage: z.boolean(),
  /** Only this element (CSS, or XPath starting `//`). */
  selector: z.string().min(1).optional(),
  format: z.enum(SCREENSHOT_FORMATS),
  /** 1–100, jpeg only. */
  quality: z.number().int().min(1).max(100).optional(),
});
export type ScreenshotOptionsV1 = z.infer<typeof screenshotOptionsV1>;

/**
 * Validated options of one Fetch request. Every combination here is one the API accepts: the
 * gateway answers `REQS004` for the others (e.g. `wait` without `js_render`).
 */
export const fetchOptionsV1 = z.object({
  js_render: z.boolean(),
  premium_proxy: z.boolean(),
  /** ISO 3166-1 alpha-2, lowercase; needs `premium_proxy` or `mode: auto`. */
  proxy_country: z
    .string()
    .regex(/^[a-z]{2}$/)
    .optional(),
  /** Adaptive stealth: start at the cheapest tier (or the one remembered for the domain) and escalate. */
  mode: z.literal('auto').optional(),
  /** Same egress IP for 10 minutes from its first use. */
  session_id: z.number().int().min(0).max(99_999).optional(),
  js_instructions: z.array(jsInstructionV1).optional(),
  /** Wait for this selector before taking the page. */
  wait_for: z.string().min(1).optional(),
  /** Extra wait after load, ms. */
  wait: z.number().int().min(0).max(30_000).optional(),
  block_resources: z.array(z.enum(BLOCKABLE_RESOURCES)).optional(),
  /** Answer `{html, xhr, js_instructions_report?, screenshot?}` as JSON. */
  json_response: z.boolean(),
  /** name → selector; a selector ending ` @attr` answers that attribute. */
  css_extractor: z.record(z.string(), z.string().min(1)).optional(),
  response_type: z.enum(RESPONSE_TYPES).optional(),
  outputs: z.array(z.enum(OUTPUT_NAMES)).optional(),
  screenshot: screenshotOptionsV1.optional(),
  device: z.enum(['desktop', 'mobile']).optional(),
  window_width: z.number().int().min(100).max(10_000).optional(),
  window_height: z.number().int().min(100).max(10_000).optional(),
  /** Pass the target's failing status through instead of the service's own error. */
  original_status: z.boolean(),
  /** Target statuses answered with the target's body (and billed). */
  allowed_status_codes: z.array(z.number().int().min(100).max(599)).optional(),
  /**
   * Seconds: a copy of the same GET (same URL, headers and every other option) that this tenant
   * fetched within this many seconds is answered from storage instead of the target.
   */
  max_age: z.number().int().min(1).max(MAX_AGE_SECONDS).optional(),
  /**
   * Compare the page with the last version of its URL this tenant fetched with `change_tracking`
   * (its Markdown text; its fields with `extract`), and keep this one as the next comparison's.
   */
  change_tracking: z.boolean().optional(),
  /**
   * `extract=auto`: answer `{parsed, html}` with this recipe applied to the final HTML; the output
   * options above (`css_extractor`, `response_type`, `outputs`, `json_response`, `screenshot`) are
   * then absent. A worker that predates the field answers the page's HTML.
   */
  extract: extractRecipeRefV1.optional(),
});
export type FetchOptionsV1 = z.infer<typeof fetchOptionsV1>;

/** A tenant's CAPTCHA solver, as configured through the admin API. */
export const captchaSolverV1 = z.object({
  /** Base URL of the solver's API. */
  endpoint: z.string().url(),
  /** The tenant's solver key (a secret: never logged). */
  key: z.string().min(1),
});
export type CaptchaSolverV1 = z.infer<typeof captchaSolverV1>;

/** Tiers a Fetch answer can be billed at (same names as `@trawl/billing`'s `Tier`). */
export const FETCH_TIERS = ['basic', 'js_render', 'premium', 'premium_js_render'] as const;

export const fetchRequestV1 = z.object({
  v: z.literal(1),
  /** The gateway's request id (`X-Request-Id`), for logs on both sides. */
  request_id: z.string().min(1),
  tenant_id: z.string().uuid(),
  /** Absolute http(s) URL, already checked for shape (the egress policy still decides at connect time). */
  url: z.string().url(),
  method: z.enum(['GET', 'POST', 'PUT']),
  /** Headers to send to the target: the caller's own with `custom_headers`, and the body's content type. */
  headers: z.record(z.string(), z.string()),
  /** POST/PUT body for the target. */
  body_base64: z.string().optional(),
  options: fetchOptionsV1,
  /** Epoch ms after which the answer is worthless: the worker stops and answers `CTX0002`. */
  deadline_at: z.number().int().positive(),
  /** Largest answer the tenant may get, in bytes (`RESP005` beyond it). */
  max_body_bytes: z.number().int().positive(),
  captcha_solver: captchaSolverV1.optional(),
  /**
   * The tiers the tenant's plan lets `mode: auto` use (always `basic`); absent: every tier. A worker
   * that predates the field ignores it and may escalate past the plan.
   */
  auto_tiers: z.array(z.enum(FETCH_TIERS)).min(1).optional(),
});
export type FetchRequestV1 = z.infer<typeof fetchRequestV1>;

/** Error codes a worker answers with (Fetch spec §7); the gateway's own codes are not here. */
export const FETCH_WORKER_ERROR_CODES = [
  /** The domain needs js_render and/or premium_proxy (a block that the asked tier could not pass). */
  'REQS002',
  /** Bad URL or parameters found only while fetching (e.g. an unsupported scheme after a redirect). */
  'REQS004',
  /** The tenant's CAPTCHA solver key was refused by the solver. */
  'REQS006',
  /** Content could not be obtained (refused by the egress policy, connection failed, 5xx). */
  'RESP001',
  /** The target answered 404 (billed). */
  'RESP002',
  /** `extract=auto` found nothing on the page (its domain is prepared). */
  'RESP003',
  /** `css_extractor` could not be applied (e.g. a selector the engine cannot parse). */
  'RESP004',
  /** The answer is larger than `max_body_bytes`. */
  'RESP005',
  /** The CAPTCHA solver failed. */
  'RESP006',
  /** The target domain does not resolve (billed). */
  'RESP007',
  /** The target's TLS certificate or configuration is broken (the spec names no code; see docs/decisions/fetch-api.md, "Error body"). */
  'RESP008',
  /** Every browser of the worker stayed busy until the deadline: transient, retry with backoff. */
  'RESP009',
  /** The worker gave up at `deadline_at`. */
  'CTX0002',
  /** The caller went away and the worker stopped. */
  'CTX0001',
  /** Something broke inside the worker. */
  'ERR0001',
] as const;
export type FetchWorkerErrorCode = (typeof FETCH_WORKER_ERROR_CODES)[number];

/**
 * The head of a worker's answer; the body follows as raw bytes (`body_bytes` of them). The body is
 * exactly what the gateway sends: the page, a transform of it, JSON, an image or a problem+json.
 */
export const fetchReplyV1 = z.object({
  v: z.literal(1),
  request_id: z.string().min(1),
  /** HTTP status the gateway answers with. */
  status: z.number().int().min(100).max(599),
  content_type: z.string().min(1),
  /** Headers for the caller: the target's, prefixed `Zr-` (`Zr-Final-Url`, `Zr-Content-Type`, `Zr-Cookies`, …). */
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
  /** The tier to bill; null when the request is free (failed, or cancelled). */
  billed_tier: z.enum(FETCH_TIERS).nullable(),
  /** Set when the answer is an error: the body is then a problem+json with this code. */
  error: z.object({ code: z.enum(FETCH_WORKER_ERROR_CODES), detail: z.string() }).optional(),
  /** Status the target answered with, when it answered (for logs and metrics). */
  target_status: z.number().int().optional(),
  /**
   * With `max_age` only: answered from a kept copy (`hit`, fetched `age_seconds` ago) or fetched now
   * (`miss`). A gateway that predates the field ignores it.
   */
  cache: z.object({ status: z.enum(CACHE_STATUSES), age_seconds: z.number().int().min(0).optional() }).optional(),
  /** With `change_tracking` only: the page against the tenant's last version of its URL. */
  change: z.object({ status: z.enum(CHANGE_STATUSES), previous_fetched_at: z.string().optional() }).optional(),
  body_bytes: z.number().int().min(0),
});
export type FetchReplyV1 = z.infer<typeof fetchReplyV1>;

/** Asks every gateway replica to give back what it holds idle of a tenant's Fetch limits (another is about to refuse it). */
export const fetchLimitsReclaimV1 = z.object({ v: z.literal(1), tenant_id: z.string().uuid() });
export type FetchLimitsReclaimV1 = z.infer<typeof fetchLimitsReclaimV1>;

/** A replica's answer: what it gave back (written to Postgres before it answers). */
export const fetchLimitsReclaimedV1 = z.object({
  v: z.literal(1),
  /** Concurrency slots freed. */
  slots: z.number().int().min(0),
  /** Requests set aside in the current rate window and taken off its count. */
  requests: z.number().int().min(0),
});
export type FetchLimitsReclaimedV1 = z.infer<typeof fetchLimitsReclaimedV1>;
