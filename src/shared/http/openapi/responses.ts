import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_KINDS } from '../../errors/api-error.js';
import { isProtected, operationsOf, type Operation } from './operations.js';

const ERROR_BODY = { $ref: '#/components/schemas/ErrorBodyDto' };

/** Response headers, declared once under components.headers. */
export const RESPONSE_HEADERS = {
  'x-request-id': { description: "The request's id: the caller's own when it sent a safe one, else minted. Quote it to support.", schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': { description: 'The authentication to use (RFC 6750 Bearer on the services, Basic on the token endpoints) and, for a refused token, why.', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests the bucket holds when full.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the bucket now.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again.', schema: { type: 'integer' } },
  'RateLimit-Policy': { description: 'The bucket: burst and window in seconds, as `burst;w=seconds`.', schema: { type: 'string' } },
} as const;

const headerRefs = (...names: (keyof typeof RESPONSE_HEADERS)[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Headers an answer of a status carries besides x-request-id. */
const EXTRA_HEADERS: Record<number, (keyof typeof RESPONSE_HEADERS)[]> = {
  401: ['WWW-Authenticate'],
  429: ['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'],
  503: ['Retry-After'],
};

/** An example description for each error code, so each status shows an error it can answer. */
const EXAMPLE_DESCRIPTIONS: Record<string, string> = {
  invalid_request: 'subscriber_id must be 1 to 128 characters of A-Z a-z 0-9 . _ : @ -',
  unsupported_grant_type: 'Only grant_type=client_credentials is supported.',
  invalid_scope: 'scope must be kidsapp:engagement:read.',
  invalid_client: 'Client authentication failed: unknown client, wrong secret or revoked credential.',
  invalid_token: 'The access token is missing, malformed, expired or revoked.',
  insufficient_scope: 'The token needs one of the scopes this operation lists.',
  access_denied: "This credential may not use the children's service.",
  not_found: 'No webhook endpoint 0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6.',
  conflict: 'No endpoint subscribes to this event type.',
  rate_limited: 'Too many requests: retry after the time in Retry-After.',
  temporarily_unavailable: 'The service cannot reach its database. Retry shortly.',
};

/** The error codes each status can carry, from the one kind→status map. */
const codesOf = (status: number): string[] => [...new Set(Object.values(ERROR_KINDS).filter((kind) => kind.status === status).map((kind) => kind.error))];

/**
 * The example code of an error response: the first code its description names (the
 * decorators describe a response as "code: when"), else the status's first code.
 */
function exampleCode(status: number, description: string | undefined): string {
  const codes = codesOf(status);
  const named = (description ?? '').match(/[a-z]+(?:_[a-z]+)+|[a-z]+/g)?.find((word) => codes.includes(word));
  return named ?? codes[0];
}

function errorResponse(status: number, description: string | undefined, headers: Record<string, unknown>) {
  const error = exampleCode(status, description);
  return {
    description: description ?? error,
    headers,
    content: {
      'application/json': {
        schema: ERROR_BODY,
        example: { error, error_description: EXAMPLE_DESCRIPTIONS[error] ?? `${error}: see the description of this response.` },
      },
    },
  };
}

/**
 * Declares every answer an operation can give beyond its own decorators: 429 where a
 * rate limit or failure budget applies (protected routes and token endpoints), 503 when the
 * database is unreachable, a 400 for a malformed URL on routes that declare no other 4xx;
 * every error with the contract's body and an example of its own code; x-request-id on
 * every response, WWW-Authenticate on 401, and Retry-After with the rate-limit headers
 * where they are sent.
 */
export function declareResponses(document: OpenAPIObject, isTokenEndpoint: (path: string) => boolean): void {
  document.components = { ...document.components, headers: { ...document.components?.headers, ...RESPONSE_HEADERS } };
  for (const { path, operation } of operationsOf(document)) {
    const responses = operation.responses as Record<string, { description?: string; headers?: unknown }>;
    if (isProtected(operation) || isTokenEndpoint(path)) responses['429'] ??= { description: 'rate_limited' };
    responses['503'] ??= { description: 'temporarily_unavailable: the database is unreachable' };
    if (!Object.keys(responses).some((status) => status.startsWith('4'))) {
      responses['400'] = { description: 'invalid_request: the URL is not correctly percent-encoded' };
    }
    for (const [status, response] of Object.entries(responses)) decorate(operation, status, response);
  }
}

function decorate(operation: Operation, status: string, response: { description?: string; headers?: unknown }): void {
  const code = Number(status);
  const headers = headerRefs('x-request-id', ...(EXTRA_HEADERS[code] ?? []));
  if (code >= 400) {
    (operation.responses as Record<string, unknown>)[status] = errorResponse(code, response.description, headers);
  } else {
    response.headers = { ...(response.headers as object), ...headers };
    response.description ||= 'Success';
  }
}
