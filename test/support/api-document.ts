import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { FETCH_JSON_ANSWERS, OPENAPI_DOCUMENT_PATH } from '@trawl/contracts/http';

/** Paths of the gateway that are not the public API, and so not in its document. */
const NOT_PUBLIC = [/^\/admin\//, /^\/(healthz|readyz|metrics)$/];
const DOCUMENT_ID = 'openapi.json';

interface MediaType {
  schema?: unknown;
  'x-itemSchema'?: unknown;
}
interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, MediaType> }>;
}
type PathItem = Record<string, Operation>;

/** What a check needs of an answer. */
export interface CheckedAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/**
 * The gateway's own OpenAPI document (`/v1/openapi.json`), used to check every answer an e2e suite
 * receives: the operation is found by method and path template, the status must be documented, a
 * JSON or problem+json body must match its schema (JSON Schema 2020-12), an NDJSON body each line's
 * schema, and any other body a documented content type. So the document cannot drift from the API.
 */
export class ApiDocument {
  private static readonly loaded = new Map<string, Promise<ApiDocument>>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { path: string; pattern: RegExp; templated: number }[];

  private constructor(private readonly document: { paths: Record<string, PathItem> }) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.templates = Object.keys(document.paths)
      .map((path) => ({
        path,
        pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`),
        templated: (path.match(/\{/g) ?? []).length,
      }))
      // A literal path wins over a template that also matches it (`/v1/jobs/estimate` over `/v1/jobs/{jobId}`).
      .sort((a, b) => a.templated - b.templated);
  }

  /** A checker of answers for `document` (an OpenAPI 3.1 document as the gateway serves it). */
  static fromDocument(document: object): ApiDocument {
    return new ApiDocument(document as { paths: Record<string, PathItem> });
  }

  /** The document of the gateway at `origin`, read once per suite. */
  static forGateway(origin: string): Promise<ApiDocument> {
    let document = ApiDocument.loaded.get(origin);
    if (!document) {
      document = fetch(`${origin}${OPENAPI_DOCUMENT_PATH}`).then(async (res) => {
        if (res.status !== 200) throw new Error(`${OPENAPI_DOCUMENT_PATH} answered ${res.status}`);
        return ApiDocument.fromDocument((await res.json()) as object);
      });
      ApiDocument.loaded.set(origin, document);
    }
    return document;
  }

  /** Whether the gateway path is one the public document must describe. */
  static isPublic(path: string): boolean {
    return !NOT_PUBLIC.some((pattern) => pattern.test(path));
  }

  /** Throws, saying what differs, unless `answer` is one the document allows for this request. */
  check(method: string, url: URL, answer: CheckedAnswer): void {
    const what = `${method} ${url.pathname} → ${answer.status}`;
    const path = url.pathname === '/v1' ? '/v1/' : url.pathname;
    const template = this.templates.find((candidate) => candidate.pattern.test(path));
    const operation = template && this.document.paths[template.path]?.[method.toLowerCase()];
    if (!template || !operation) throw new Error(`${what}: no operation in the OpenAPI document for ${method} ${url.pathname}`);
    const status = operation.responses[String(answer.status)] ? String(answer.status) : 'default';
    const response = operation.responses[status];
    if (!response) throw new Error(`${what}: status ${answer.status} is not documented for ${operation.operationId}`);
    const content = response.content ?? {};
    if (method === 'HEAD' || answer.status === 204 || answer.status === 304) {
      if (answer.bytes.length > 0) throw new Error(`${what}: a body where none is allowed`);
      return;
    }
    if (Object.keys(content).length === 0) {
      if (answer.bytes.length > 0) throw new Error(`${what}: a body, but ${operation.operationId} ${status} documents none`);
      return;
    }
    const contentType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const mediaName = [contentType, `${contentType.split('/')[0]}/*`, '*/*'].find((name) => content[name] !== undefined);
    if (!mediaName) {
      throw new Error(
        `${what}: content type ${contentType || '(none)'} is not one of ${Object.keys(content).join(', ')} (${operation.operationId})`,
      );
    }
    const base = `#/paths/${pointerPart(template.path)}/${method.toLowerCase()}/responses/${status}/content/${pointerPart(mediaName)}`;
    const media = content[mediaName]!;
    if (/^application\/([\w.-]+\+)?json$/.test(mediaName) && media.schema !== undefined) {
      const body = parseJson(answer.bytes, what);
      const answerComponent = operation.operationId.startsWith('fetchPage') && answer.status === 200 ? fetchJsonAnswer(url) : undefined;
      this.validate(answerComponent ? `#/components/schemas/${answerComponent}` : `${base}/schema`, body, what);
    } else if (mediaName === 'application/x-ndjson' && media['x-itemSchema'] !== undefined) {
      const lines = answer.bytes
        .toString('utf8')
        .split('\n')
        .filter((line) => line !== '');
      lines.forEach((line, index) =>
        this.validate(`${base}/x-itemSchema`, parseJson(Buffer.from(line), `${what} line ${index + 1}`), `${what} line ${index + 1}`),
      );
    }
  }

  private validate(pointer: string, value: unknown, what: string): void {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
      if (!validate) throw new Error(`${what}: no schema at ${pointer}`);
      this.validators.set(pointer, validate);
    }
    if (!validate(value)) {
      const errors = (validate.errors ?? []).map(
        (error) => `${error.instancePath || '(body)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
      );
      throw new Error(
        `${what}: the body does not match ${pointer}:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(value).slice(0, 2_000)}`,
      );
    }
  }
}

/** The component of a Fetch answer's JSON, by the parameter that asked for it (`FETCH_JSON_ANSWERS`). */
function fetchJsonAnswer(url: URL): string | undefined {
  const query = url.searchParams;
  if (query.get('extract') === 'auto' || query.get('autoparse') === 'true') return FETCH_JSON_ANSWERS.extract;
  if (query.get('json_response') === 'true') return FETCH_JSON_ANSWERS.json_response;
  if (query.has('css_extractor')) return FETCH_JSON_ANSWERS.css_extractor;
  if (query.has('outputs')) return FETCH_JSON_ANSWERS.outputs;
  return undefined;
}

function pointerPart(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new Error(`${what}: a JSON content type with a body that is not JSON: ${bytes.toString('utf8').slice(0, 200)}`);
  }
}

/**
 * `fetch` for the gateway's public API in e2e suites: the same answer, checked against the
 * gateway's OpenAPI document first (see {@link ApiDocument}). Other URLs pass through unchecked.
 */
export async function checkedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const url = new URL(input);
  const res = await fetch(url, init);
  if (!ApiDocument.isPublic(url.pathname)) return res;
  const bytes = Buffer.from(await res.arrayBuffer());
  const document = await ApiDocument.forGateway(url.origin);
  document.check((init?.method ?? 'GET').toUpperCase(), url, { status: res.status, headers: res.headers, bytes });
  const bodiless = res.status === 204 || res.status === 304 || bytes.length === 0;
  return new Response(bodiless ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
}
