import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { fromText, normalize, type Schema } from './schema-arbitraries.js';

/**
 * The served OpenAPI document as the conformance fuzzer reads it: its operations, their
 * parameters, request bodies, responses and security, and Ajv validation of values and
 * whole requests against it.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
}

export interface ResponseSpec {
  /** Media type → schema (undefined when the document gives none). */
  content: Record<string, Schema | undefined>;
  /** Lower-cased header name → whether the document marks it required. */
  headers: Record<string, { required: boolean }>;
}

export interface Operation {
  /** "METHOD /path/{template}" */
  id: string;
  method: HttpMethod;
  path: string;
  parameters: Parameter[];
  body?: { required: boolean; mediaType: string; schema: Schema };
  responses: Record<string, ResponseSpec>;
  /** Security requirement alternatives in force (the operation's, else the document's). */
  security: Record<string, string[]>[];
  /** `x-sandbox-only`: answered to sandbox credentials only. */
  sandboxOnly: boolean;
}

/** Whether the operation demands credentials: a requirement is declared and none is the empty one. */
export const requiresAuth = (operation: Operation) =>
  operation.security.length > 0 && operation.security.every((requirement) => Object.keys(requirement).length > 0);

export class OpenApiDocument {
  readonly operations: Operation[];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  constructor(readonly raw: any) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    // ajv-formats is CommonJS: its default export arrives as the module object.
    const addFormats = (ajvFormats as unknown as { default?: (ajv: Ajv2020) => void }).default ?? (ajvFormats as unknown as (ajv: Ajv2020) => void);
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: raw.components ?? {} });
    this.operations = this.readOperations();
  }

  /** Resolves a local reference (#/a/b/c) in the document. */
  resolveRef = (ref: string): Schema => {
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported, not ${ref}`);
    let node = this.raw;
    for (const segment of ref.slice(2).split('/')) {
      node = node?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
      if (node === undefined) throw new Error(`unresolvable reference ${ref}`);
    }
    return node;
  };

  /** Ajv's complaints about `value` under `schema`, or null when it validates. */
  validate(schema: Schema, value: unknown): string | null {
    const key = JSON.stringify(schema);
    let validator = this.compiled.get(key);
    if (!validator) {
      const rebased = JSON.parse(key.replace(/"#\/components\//g, '"openapi.json#/components/'));
      validator = this.ajv.compile(rebased);
      this.compiled.set(key, validator);
    }
    if (validator(value)) return null;
    return (validator.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message}`).join('; ');
  }

  private readOperations(): Operation[] {
    const operations: Operation[] = [];
    const methods: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    for (const [path, rawItem] of Object.entries<Schema>(this.raw.paths ?? {})) {
      const item = normalize(rawItem, this);
      for (const method of methods) {
        const operation = item[method.toLowerCase()];
        if (!operation) continue;
        const parameters = new Map<string, Parameter>();
        for (const raw of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
          const parameter = normalize(raw, this);
          parameters.set(`${parameter.in}:${parameter.name}`, {
            name: parameter.name,
            in: parameter.in,
            required: parameter.in === 'path' || parameter.required === true,
            schema: parameter.schema ?? {},
          });
        }
        let body: Operation['body'];
        if (operation.requestBody) {
          const requestBody = normalize(operation.requestBody, this);
          const [mediaType, media] = Object.entries<Schema>(requestBody.content ?? {})[0] ?? [];
          if (mediaType) body = { required: requestBody.required === true, mediaType, schema: media?.schema ?? {} };
        }
        const responses: Record<string, ResponseSpec> = {};
        for (const [status, rawResponse] of Object.entries<Schema>(operation.responses ?? {})) {
          const response = normalize(rawResponse, this);
          const content: ResponseSpec['content'] = {};
          for (const [mediaType, media] of Object.entries<Schema>(response.content ?? {})) content[mediaType.toLowerCase()] = media?.schema;
          const headers: ResponseSpec['headers'] = {};
          for (const [name, rawHeader] of Object.entries<Schema>(response.headers ?? {}))
            headers[name.toLowerCase()] = { required: normalize(rawHeader, this).required === true };
          responses[status.toUpperCase()] = { content, headers };
        }
        operations.push({
          id: `${method} ${path}`,
          method,
          path,
          parameters: [...parameters.values()],
          body,
          responses,
          security: operation.security ?? this.raw.security ?? [],
          sandboxOnly: operation['x-sandbox-only'] === true,
        });
      }
    }
    return operations;
  }
}

/** A request as generated, before it is put on the wire. Path and query values are text. */
export interface FuzzRequest {
  pathParams: Record<string, string>;
  /** Absent keys are not sent. */
  query: Record<string, string>;
  body?: { mediaType: string; value: unknown };
  /** The Authorization header, and how to name it in a report. */
  authorization?: string;
  authLabel: string;
}

export const isForm = (mediaType: string) => mediaType === 'application/x-www-form-urlencoded';
export const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

/** Where the document says a request violates it; empty when it conforms. */
export function requestProblems(document: OpenApiDocument, operation: Operation, request: FuzzRequest): string[] {
  const problems: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const text = parameter.in === 'path' ? request.pathParams[parameter.name] : request.query[parameter.name];
    if (text === undefined) {
      if (parameter.required) problems.push(`${parameter.in}.${parameter.name} missing`);
      continue;
    }
    const problem = document.validate(parameter.schema, fromText(parameter.schema, text, document));
    if (problem) problems.push(`${parameter.in}.${parameter.name}: ${problem}`);
  }
  if (operation.body) {
    if (!request.body) {
      if (operation.body.required) problems.push('body missing');
    } else if (isForm(request.body.mediaType)) {
      const schema = normalize(operation.body.schema, document);
      const fields = request.body.value as Record<string, string>;
      const typed = Object.fromEntries(Object.entries(fields).map(([name, text]) => [name, fromText(schema.properties?.[name] ?? {}, text, document)]));
      const problem = document.validate(operation.body.schema, typed);
      if (problem) problems.push(`body: ${problem}`);
    } else {
      const problem = document.validate(operation.body.schema, request.body.value);
      if (problem) problems.push(`body: ${problem}`);
    }
  }
  return problems;
}

/** The URL of a request: path values percent-encoded as a segment, query as name=value pairs. */
export function urlOf(operation: Operation, request: FuzzRequest): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(request.pathParams[name] ?? ''));
  const query = Object.entries(request.query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  return query ? `${path}?${query}` : path;
}

/** The payload and its content type, as sent. */
export function payloadOf(request: FuzzRequest): { payload?: string; contentType?: string } {
  if (!request.body) return {};
  const { mediaType, value } = request.body;
  if (isForm(mediaType)) {
    const fields = value !== null && typeof value === 'object' ? Object.entries(value as Record<string, string>) : [];
    return { payload: new URLSearchParams(fields).toString(), contentType: mediaType };
  }
  return { payload: JSON.stringify(value), contentType: mediaType };
}
