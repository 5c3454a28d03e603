import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { OpenApiDocument } from '@trawl/contracts/http';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Registry } from 'prom-client';
import { GatewayModule, type GatewayResources } from '../gateway.module';
import { gatewayOpenApiDocument } from './openapi.document';

/** Routes of the gateway that are not the public API: the operators' admin API and the probes. */
const NOT_PUBLIC = [/^\/admin\//, /^\/(healthz|readyz|metrics)$/];
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const document: OpenApiDocument = gatewayOpenApiDocument();

interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; required?: boolean }[];
  responses: Record<string, unknown>;
}

function operations(): { method: string; path: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => OPERATION_METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operation: operation as unknown as Operation })),
  );
}

/** Every `"$ref"` string anywhere in `value`. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else refsIn(item, found);
    }
  }
  return found;
}

function resolvePointer(pointer: string): unknown {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      document,
    );
}

/** `METHOD /path/{param}` of every route of every controller the gateway module mounts. */
function controllerRoutes(): string[] {
  const resources = { config: { FILE_TRANSFERS_MAX: 1 }, registry: new Registry() } as unknown as GatewayResources;
  const seen = new Set<unknown>();
  const routes: string[] = [];
  const visit = (entry: unknown): void => {
    if (!entry || seen.has(entry)) return;
    seen.add(entry);
    const dynamic = typeof entry === 'object' ? (entry as { module: Type; imports?: unknown[]; controllers?: Type[] }) : undefined;
    const moduleClass = dynamic ? dynamic.module : (entry as Type);
    const imports = [...(dynamic?.imports ?? []), ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass) as unknown[]) ?? [])];
    const controllers = [
      ...(dynamic?.controllers ?? []),
      ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, moduleClass) as Type[]) ?? []),
    ];
    for (const controller of new Set(controllers)) routes.push(...routesOf(controller));
    imports.forEach(visit);
  };
  visit(GatewayModule.register(resources));
  return [...new Set(routes)];
}

function routesOf(controller: Type): string[] {
  const bases = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined].flat();
  const prototype = controller.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype).flatMap((name) => {
    const handler = prototype[name];
    if (typeof handler !== 'function' || name === 'constructor') return [];
    const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
    const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined].flat();
    if (method === undefined || paths[0] === undefined) return [];
    return bases.flatMap((base) =>
      paths.map((path) => {
        const joined = `/${[base, path].filter((part) => part && part !== '/').join('/')}`.replace(/\/+/g, '/').replace(/:(\w+)/g, '{$1}');
        return `${RequestMethod[method]} ${joined}`;
      }),
    );
  });
}

/** A path as Nest writes it: no trailing slash (the Fetch endpoint is documented as `/v1/`, as clients call it). */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/$/, '') : path;
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1 with the build version and both API key schemes', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(document.components.securitySchemes).toEqual({
      ApiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ApiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'apikey' }),
    });
  });

  it('gives every operation a unique operationId and at least one answer', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operation } of operations()) expect(Object.keys(operation.responses).length).toBeGreaterThan(0);
  });

  it('has the fields OpenAPI 3.1 requires of parameters, answers and media types', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`;
      for (const parameter of operation.parameters ?? []) {
        expect({ where, parameter }).toEqual({
          where,
          parameter: expect.objectContaining({
            name: expect.any(String),
            in: expect.stringMatching(/^(path|query|header|cookie)$/),
            schema: expect.any(Object),
          }),
        });
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        expect({ where, status }).toEqual({ where, status: expect.stringMatching(/^([1-5]\d\d|[1-5]XX|default)$/) });
        const { description, content } = response as { description?: unknown; content?: Record<string, unknown> };
        expect({ where, status, description: typeof description }).toEqual({ where, status, description: 'string' });
        for (const mediaType of Object.keys(content ?? {}))
          expect({ where, mediaType }).toEqual({ where, mediaType: expect.stringMatching(/^[\w.+-]+\/[\w.+*-]+$|^\*\/\*$/) });
      }
    }
  });

  it('declares every path parameter of every template, and no other', () => {
    for (const { path, method, operation } of operations()) {
      const inTemplate = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
      expect({ route: `${method} ${path}`, names: declared.map((parameter) => parameter.name).sort() }).toEqual({
        route: `${method} ${path}`,
        names: inTemplate,
      });
      expect(declared.every((parameter) => parameter.required === true)).toBe(true);
    }
  });

  it('lists the problem codes clients branch on', () => {
    const code = (document.components.schemas.Problem?.properties as Record<string, { description?: string }>).code;
    expect(code?.description).toEqual(expect.stringContaining('- 404 `crawl_not_found`'));
    expect(code?.description).toEqual(expect.stringContaining('- 429 `AUTH006`'));
  });

  it('resolves every $ref', () => {
    const unresolved = refsIn(document).filter((ref) => !ref.startsWith('#/') || resolvePointer(ref) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('holds schemas a JSON Schema 2020-12 validator compiles', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, 'openapi.json');
    for (const name of Object.keys(document.components.schemas)) {
      expect(() => ajv.getSchema(`openapi.json#/components/schemas/${name}`)).not.toThrow();
      expect(ajv.getSchema(`openapi.json#/components/schemas/${name}`)).toBeDefined();
    }
  });

  it('documents every public route of the gateway, and only those', () => {
    const all = controllerRoutes();
    // The walk finds the modules' controllers (else the comparison below proves nothing).
    expect(all).toEqual(expect.arrayContaining(['POST /v1/crawls', 'ALL /v1', 'POST /admin/v1/tenants', 'GET /v1/openapi.json']));
    const documented = operations().map(({ method, path }) => `${method.toUpperCase()} ${withoutTrailingSlash(path)}`);
    const served = all.filter((route) => !NOT_PUBLIC.some((pattern) => pattern.test(route.split(' ')[1]!)));
    // `@All` (the Fetch endpoint) answers every verb: each documented one is served.
    const expandAll = (route: string) => {
      const [method, path] = route.split(' ') as [string, string];
      return method === 'ALL' ? documented.filter((candidate) => candidate.endsWith(` ${path}`)) : [route];
    };
    const servedRoutes = new Set(served.flatMap(expandAll));
    expect(served.filter((route) => expandAll(route).length === 0)).toEqual([]);
    expect([...servedRoutes].filter((route) => !documented.includes(route)).sort()).toEqual([]);
    expect(documented.filter((route) => !servedRoutes.has(route)).sort()).toEqual([]);
  });
});
