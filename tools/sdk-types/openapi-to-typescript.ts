/**
 * Writes the TypeScript types of the SDK (`libs/sdk/src/generated/api-types.ts`) from the gateway's
 * OpenAPI document: one declaration per `components.schemas` entry, and one `<Operation>Query` per
 * operation with query parameters. The SDK's types thus come from the zod schemas the gateway
 * validates with, through the document it serves; `test/sdk/sdk-types.spec.ts` fails when the
 * committed file differs from what the document gives today.
 *
 * Covers the JSON Schema 2020-12 that zod 4 writes for our contracts: `type` (one or a list),
 * `enum`, `const`, `properties`/`required`, `additionalProperties`, `propertyNames`, `items`,
 * `prefixItems`, `anyOf`/`oneOf`/`allOf` and `$ref` to a component. Bounds and patterns are checked
 * by the server and left out of the types.
 */

type Schema = boolean | { [keyword: string]: unknown };

interface Document {
  paths: Record<
    string,
    Record<
      string,
      { operationId?: string; parameters?: Parameter[]; responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }
    >
  >;
  components: { schemas: Record<string, Schema> };
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

const HEADER = `// Generated from the gateway's OpenAPI document by tools/generate-sdk-types.ts: do not edit.
// \`npm run sdk:types\` writes it again; test/sdk/sdk-types.spec.ts fails when it is out of date.
`;

/** The source of `api-types.ts` for `document`. Deterministic: same document, same text. */
export function openApiToTypeScript(document: Document): string {
  const parts: string[] = [HEADER];
  for (const name of Object.keys(document.components.schemas).sort()) {
    const schema = document.components.schemas[name];
    parts.push(declaration(name, schema));
  }
  // Operations sharing one parameter list (Fetch's GET, POST and PUT) share one declaration.
  const declaredAs = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const query = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      if (query.length === 0 || operation.operationId === undefined) continue;
      const name = `${pascal(operation.operationId)}Query`;
      const body = query
        .map((parameter) => member(parameter.name, parameter.schema ?? {}, parameter.required === true, parameter.description, 1))
        .join('\n');
      const doc = `/** Query parameters of \`${method.toUpperCase()} ${path}\`. */\n`;
      const same = declaredAs.get(body);
      if (same !== undefined) parts.push(`${doc}export type ${name} = ${same};\n`);
      else {
        declaredAs.set(body, name);
        parts.push(`${doc}export interface ${name} {\n${body}\n}\n`);
      }
    }
  }
  parts.push(operationResponses(document));
  return parts.join('\n');
}

/**
 * `OperationResponses`: each operation's successful JSON answer by its operationId (`void` for an
 * answer without a body, `unknown` for one that is not JSON), so the SDK's methods can be checked
 * against the document operation by operation.
 */
function operationResponses(document: Document): string {
  const lines: string[] = [];
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId === undefined) continue;
      const success = Object.entries(operation.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
      const types = unique(
        success.map(([, response]) => {
          const content = response.content ?? {};
          const json = content['application/json']?.schema;
          if (json !== undefined) return typeOf(json, 1);
          return Object.keys(content).length === 0 ? 'void' : 'unknown';
        }),
      );
      lines.push(`  ${operation.operationId}: ${types.length === 0 ? 'never' : types.join(' | ')};`);
    }
  }
  return `/** The successful answer of each operation, by operationId. */\nexport interface OperationResponses {\n${lines.join('\n')}\n}\n`;
}

function declaration(name: string, schema: Schema): string {
  const doc = jsDoc(description(schema), 0);
  if (typeof schema === 'object' && isObjectSchema(schema) && schema.additionalProperties === false) {
    return `${doc}export interface ${name} ${typeOf(schema, 0)}\n`;
  }
  return `${doc}export type ${name} = ${typeOf(schema, 0)};\n`;
}

function typeOf(schema: Schema, depth: number): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  const ref = schema.$ref;
  if (typeof ref === 'string') return ref.slice(ref.lastIndexOf('/') + 1);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options)) return unique(options.map((option) => wrap(typeOf(option as Schema, depth)))).join(' | ');
  }
  if (Array.isArray(schema.allOf)) return schema.allOf.map((part) => wrap(typeOf(part as Schema, depth))).join(' & ');
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : [];
  if (types.length === 0) return isObjectSchema(schema) ? objectType(schema, depth) : 'unknown';
  return unique(types.map((type) => wrap(typeOfType(type, schema, depth)))).join(' | ');
}

function typeOfType(type: string, schema: { [keyword: string]: unknown }, depth: number): string {
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return arrayType(schema, depth);
    case 'object':
      return objectType(schema, depth);
    default:
      return 'unknown';
  }
}

function arrayType(schema: { [keyword: string]: unknown }, depth: number): string {
  if (Array.isArray(schema.prefixItems)) {
    const fixed = schema.prefixItems.map((item) => typeOf(item as Schema, depth));
    return schema.items === false
      ? `[${fixed.join(', ')}]`
      : `[${fixed.join(', ')}, ...${wrap(typeOf((schema.items ?? true) as Schema, depth))}[]]`;
  }
  return `${wrap(typeOf((schema.items ?? true) as Schema, depth))}[]`;
}

function objectType(schema: { [keyword: string]: unknown }, depth: number): string {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const lines = Object.entries(properties).map(([name, property]) =>
    member(name, property, required.has(name), description(property), depth + 1),
  );
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    const key =
      typeof schema.propertyNames === 'object' && schema.propertyNames !== null ? keyType(schema.propertyNames as Schema) : 'string';
    const value = extra === true ? 'unknown' : typeOf(extra as Schema, depth + 1);
    if (lines.length === 0) return key === 'string' ? `Record<string, ${value}>` : `Partial<Record<${key}, ${value}>>`;
    lines.push(`${indent(depth + 1)}[key: string]: ${value === 'unknown' ? 'unknown' : `${value} | undefined`};`);
  }
  if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${lines.join('\n')}\n${indent(depth)}}`;
}

/** A record's key type: an enum of names, or `string`. */
function keyType(schema: Schema): string {
  if (typeof schema === 'object' && Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  return 'string';
}

function member(name: string, schema: Schema, required: boolean, text: string | undefined, depth: number): string {
  const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
  return `${jsDoc(text, depth)}${indent(depth)}${key}${required ? '' : '?'}: ${typeOf(schema, depth)};`;
}

function description(schema: Schema): string | undefined {
  return typeof schema === 'object' && typeof schema.description === 'string' ? schema.description : undefined;
}

function jsDoc(text: string | undefined, depth: number): string {
  if (text === undefined || text.trim() === '') return '';
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent(depth)}/** ${lines[0]} */\n`;
  return `${indent(depth)}/**\n${lines.map((line) => `${indent(depth)} * ${line}`.trimEnd()).join('\n')}\n${indent(depth)} */\n`;
}

function isObjectSchema(schema: { [keyword: string]: unknown }): boolean {
  return schema.type === 'object' || schema.properties !== undefined;
}

function literal(value: unknown): string {
  return JSON.stringify(value);
}

/** `type` in parentheses when it is a union or an intersection, so `[]` or `|` can follow it. */
function wrap(type: string): string {
  if (type.startsWith('{') && type.endsWith('}')) return type;
  return type.includes(' | ') || type.includes(' & ') ? `(${type})` : type;
}

function unique(types: string[]): string[] {
  return [...new Set(types)];
}

function indent(depth: number): string {
  return '  '.repeat(depth);
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
