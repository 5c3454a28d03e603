import { z } from 'zod';
import type { ApiResponse, ApiRoute } from './api-route';
import { problemResponses } from './problem.schema';

/** The OpenAPI version of the document; its schemas are JSON Schema 2020-12, 3.1's dialect. */
export const OPENAPI_VERSION = '3.1.0';

/** A JSON value of the document (plain objects, as `JSON.stringify` writes them). */
export type JsonObject = { [key: string]: unknown };

export interface OpenApiDocument extends JsonObject {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: Record<string, JsonObject> };
}

export interface OpenApiOptions {
  /** `info.version`: the version of the build (package.json) that serves the document. */
  version: string;
  /**
   * Every problem `code` the API answers, with its status and title (the gateway's problem catalog):
   * listed in the `Problem` schema's `code`, so clients see what they may branch on.
   */
  problemCodes?: readonly { code: string; status: number; title: string }[];
}

/** How the API key travels (apps/gateway/src/auth/api-key.hook.ts): either of these. */
const SECURITY_SCHEMES = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The API key (wins over `apikey`).' },
  ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'apikey', description: 'The API key, as a query parameter.' },
};

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
};

/**
 * Builds the OpenAPI 3.1 document of `routes` from their zod schemas: request schemas as their
 * input (`io: 'input'`, what a client sends), answers as their output. Every schema with a
 * `.meta({ id })` becomes one entry of `components.schemas`; an id whose request and answer forms
 * differ gets its request form as `<id>Input`.
 *
 * Answers every route can give are added where a route does not list them: `400` (an unknown query
 * parameter or a bad value), `500`, and for routes behind the API key `401` and `402` (key missing,
 * unknown or expired); for routes with a JSON body, `413` and `415`.
 *
 * @throws Error on two routes with one operationId or one method and path, or two different
 *   schemas with one id.
 */
export function buildOpenApiDocument(routes: readonly ApiRoute[], options: OpenApiOptions): OpenApiDocument {
  const schemas = new SchemaComponents();
  const paths: Record<string, Record<string, JsonObject>> = {};
  const operationIds = new Set<string>();
  const tags: string[] = [];
  for (const route of routes) {
    if (operationIds.has(route.operationId)) throw new Error(`operationId ${route.operationId} is used twice`);
    operationIds.add(route.operationId);
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is described twice`);
    item[route.method] = operation(route, schemas);
    if (!tags.includes(route.tag)) tags.push(route.tag);
  }
  const components = schemas.all();
  if (options.problemCodes) describeProblemCodes(components, options.problemCodes);
  return {
    openapi: OPENAPI_VERSION,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Trawl API',
      version: options.version,
      description:
        'The public API of Trawl: Fetch (one page), Crawl, Batch, and the account. Errors are `application/problem+json` ' +
        '(RFC 9457) with a stable `code`.',
    },
    servers: [{ url: '/', description: 'The installation serving this document' }],
    security: Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] })),
    tags: tags.map((name) => ({ name })),
    paths,
    components: { schemas: components, securitySchemes: SECURITY_SCHEMES },
  };
}

/** Lists the codes, by status, in the description of `Problem.code`. */
function describeProblemCodes(components: Record<string, JsonObject>, codes: NonNullable<OpenApiOptions['problemCodes']>): void {
  const code = (components.Problem?.properties as Record<string, JsonObject> | undefined)?.code;
  if (!code) throw new Error('No Problem schema with a `code` to describe');
  const unique = [...new Map(codes.map((entry) => [`${entry.status} ${entry.code}`, entry])).values()].sort(
    (a, b) => a.status - b.status || a.code.localeCompare(b.code),
  );
  code.description = [
    "Trawl's stable error code: what clients branch on. By status:",
    '',
    ...unique.map((entry) => `- ${entry.status} \`${entry.code}\`: ${entry.title}`),
  ].join('\n');
}

function operation(route: ApiRoute, schemas: SchemaComponents): JsonObject {
  const authenticated = route.authenticated !== false;
  const parameters = [
    ...parametersOf(route.params, 'path', schemas),
    ...parametersOf(route.query, 'query', schemas),
    ...parametersOf(route.headers, 'header', schemas),
  ];
  const jsonBody = route.body !== undefined && isZod(route.body);
  const implied = problemResponses(400, 500, ...(authenticated ? [401, 402] : []), ...(jsonBody ? [413, 415] : []));
  const responses: Record<string, ApiResponse> = { ...implied, ...route.responses };
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description && { description: route.description }),
    tags: [route.tag],
    ...(!authenticated && { security: [] }),
    ...(parameters.length > 0 && { parameters }),
    ...(route.body !== undefined && { requestBody: requestBody(route.body, schemas) }),
    responses: Object.fromEntries(
      Object.entries(responses)
        .sort(([a], [b]) => (a === 'default' ? 1 : b === 'default' ? -1 : Number(a) - Number(b)))
        .map(([status, response]) => [status, responseObject(status, response, schemas)]),
    ),
  };
}

function parametersOf(shape: z.ZodObject | undefined, where: 'path' | 'query' | 'header', schemas: SchemaComponents): JsonObject[] {
  if (!shape) return [];
  return Object.entries(shape.shape as Record<string, z.ZodType>).map(([name, field]) => {
    const { description, ...schema } = schemas.of(field, 'input');
    const required = where === 'path' || !field.safeParse(undefined).success;
    return { name, in: where, required, ...(description !== undefined && { description }), schema };
  });
}

function requestBody(body: NonNullable<ApiRoute['body']>, schemas: SchemaComponents): JsonObject {
  if (isZod(body)) return { required: true, content: { 'application/json': { schema: schemas.of(body, 'input') } } };
  return {
    required: body.schema !== undefined,
    ...(body.description && { description: body.description }),
    content: { [body.contentType]: body.schema ? { schema: schemas.of(body.schema, 'input') } : {} },
  };
}

function responseObject(status: string, response: ApiResponse, schemas: SchemaComponents): JsonObject {
  if (isZod(response)) {
    const schema = schemas.of(response, 'output');
    return { description: STATUS_TEXT[status] ?? 'Answer', content: { 'application/json': { schema } } };
  }
  const media: Record<string, JsonObject> = {};
  if (response.contentType) media[response.contentType] = mediaType(response.contentType, response.schema, undefined, schemas);
  for (const alternative of response.alternatives ?? []) {
    media[alternative.contentType] = mediaType(alternative.contentType, alternative.schema, alternative.description, schemas);
  }
  return {
    description: response.description,
    ...(response.headers && {
      headers: Object.fromEntries(
        Object.entries(response.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]),
      ),
    }),
    ...(Object.keys(media).length > 0 && { content: media }),
  };
}

/** NDJSON: `schema` describes one line; OpenAPI 3.1 has no field for that (3.2's `itemSchema`), hence `x-itemSchema`. */
function mediaType(
  contentType: string,
  schema: z.ZodType | undefined,
  description: string | undefined,
  schemas: SchemaComponents,
): JsonObject {
  const described = description !== undefined ? { description } : {};
  if (!schema)
    return contentType.startsWith('text/')
      ? { schema: { type: 'string', ...described } }
      : described.description
        ? { schema: described }
        : {};
  if (contentType === 'application/x-ndjson') {
    return { schema: { type: 'string', description: 'One JSON object per line.' }, 'x-itemSchema': schemas.of(schema, 'output') };
  }
  return { schema: { ...schemas.of(schema, 'output'), ...described } };
}

function isZod(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** `components.schemas`, filled as routes' schemas are converted. */
class SchemaComponents {
  private readonly components = new Map<string, JsonObject>();

  /** The JSON Schema of `schema`, its id'd parts moved to the components and referred to. */
  of(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const converted = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      // A transform's or a custom check's output cannot be written in JSON Schema: it says nothing there.
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
    }) as JsonObject;
    const { $schema: _dialect, $defs, ...root } = converted;
    const defs = ($defs ?? {}) as Record<string, JsonObject>;
    const names = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      const plain = rewriteRefs(def, (name) => name);
      names.set(id, this.nameFor(id, plain, io));
    }
    const refer = (id: string) => names.get(id) ?? id;
    for (const [id, def] of Object.entries(defs)) this.components.set(refer(id), rewriteRefs(def, refer));
    return rewriteRefs(root, refer);
  }

  all(): Record<string, JsonObject> {
    return Object.fromEntries([...this.components.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  private nameFor(id: string, schema: JsonObject, io: 'input' | 'output'): string {
    const candidates = [id, `${id}${io === 'input' ? 'Input' : 'Output'}`];
    for (const name of candidates) {
      const existing = this.components.get(name);
      if (
        !existing ||
        sameJson(
          existing,
          rewriteRefs(schema, (ref) => (ref === id ? name : ref)),
        )
      )
        return name;
    }
    throw new Error(`Two different schemas carry the id ${id}`);
  }
}

/** A copy of `value` with every `#/$defs/<id>` reference pointing at `#/components/schemas/<rename(id)>`. */
function rewriteRefs<T>(value: T, rename: (id: string) => string): T {
  if (Array.isArray(value)) return value.map((item: unknown) => rewriteRefs(item, rename)) as T;
  if (value === null || typeof value !== 'object') return value;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value as JsonObject)) {
    copy[key] =
      key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')
        ? `#/components/schemas/${rename(item.slice('#/$defs/'.length))}`
        : rewriteRefs(item, rename);
  }
  return copy as T;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
