// The operations of an OpenAPI document, as the fuzz sees them: method, path template, parameters,
// request body schema and documented responses; and the HTTP request a set of chosen values makes.
import type { JsonSchema } from './schema-arbitrary.js';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** `METHOD /path/{template}`, the operation's name in reports. */
  key: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body: { schema: JsonSchema; required: boolean } | null;
  /** A multipart/form-data body: the names of its file fields (format binary). */
  multipart: { files: string[] } | null;
  /** Status code (or `default`) → response body schema (null when none is documented). */
  responses: Record<string, JsonSchema | null>;
}

type RawOperation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
};

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      const responses: Record<string, JsonSchema | null> = {};
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        responses[status] = response.content?.['application/json']?.schema ?? null;
      }
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map((p) => ({ ...p, required: p.required ?? p.in === 'path' })),
        body: bodySchema ? { schema: bodySchema, required: op.requestBody?.required ?? false } : null,
        multipart: multipartOf(op.requestBody?.content?.['multipart/form-data']?.schema),
        responses,
      });
    }
  }
  return operations;
}

function multipartOf(schema: JsonSchema | undefined): { files: string[] } | null {
  const properties = (schema as { properties?: Record<string, { format?: string }> } | undefined)?.properties;
  if (!properties) return null;
  return { files: Object.entries(properties).flatMap(([name, p]) => (p.format === 'binary' ? [name] : [])) };
}

/** A multipart/form-data body holding each file under its field name. */
export function multipartBody(files: Record<string, Uint8Array>): { bytes: Buffer; contentType: string } {
  const boundary = 'fuzz-boundary-7d1f0c';
  const parts = Object.entries(files).map(([name, content]) =>
    Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="fuzz.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      content,
      Buffer.from('\r\n'),
    ]),
  );
  return {
    bytes: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** The values one request is made of, before it is written as HTTP. */
export interface RequestParts {
  /** Path parameter → raw text put in the path as written (already encoded). */
  path: Record<string, string>;
  /** Query parameter → a value (arrays are repeated parameters); absent members are not sent. */
  query: Record<string, unknown>;
  /** The body: a JSON value, raw bytes with a content type, or none. */
  body:
    | { kind: 'json'; value: unknown; deep?: number }
    | { kind: 'raw'; bytes: Buffer; contentType: string }
    | { kind: 'none' };
  /** Query text appended as written (mutations that no value can express). */
  rawQuery?: string;
}

/** The marker a deep-nesting mutation leaves in a value; written out as `depth` nested arrays. */
export const DEEP_MARKER = '\u0000fuzz-deep\u0000';

/** Percent-encodes text; a lone surrogate (which encodeURIComponent refuses) goes as its UTF-8 replacement. */
export function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

function queryText(query: Record<string, unknown>, rawQuery?: string): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      pairs.push(`${encode(name)}=${encode(text)}`);
    }
  }
  if (rawQuery) pairs.push(rawQuery);
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** The JSON text of a body; the deep marker becomes `depth` nested arrays (built as text, no recursion). */
function jsonText(value: unknown, depth = 0): string {
  const text = JSON.stringify(value) ?? 'null';
  const marker = JSON.stringify(DEEP_MARKER);
  return text.includes(marker) ? text.replace(marker, `${'['.repeat(depth)}${']'.repeat(depth)}`) : text;
}

export function httpRequest(op: Operation, parts: RequestParts, key: string) {
  const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => parts.path[name] ?? '');
  const headers: Record<string, string> = { 'x-session-api-key': key };
  let body: Buffer | undefined;
  if (parts.body.kind === 'json') {
    body = Buffer.from(jsonText(parts.body.value, parts.body.deep), 'utf8');
    headers['content-type'] = 'application/json';
  } else if (parts.body.kind === 'raw') {
    body = parts.body.bytes;
    headers['content-type'] = parts.body.contentType;
  }
  return { method: op.method, path: `${path}${queryText(parts.query, parts.rawQuery)}`, headers, body };
}
