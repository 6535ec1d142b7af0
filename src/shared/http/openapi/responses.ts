import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_KINDS } from '../../errors/api-error.js';
import { isProtected, operationsOf, type Operation } from './operations.js';

const ERROR_BODY = { $ref: '#/components/schemas/ErrorBodyDto' };

/**
 * Response headers, declared once under components.headers. Each is `required` where it is
 * declared: an answer the document says carries it always does (the conformance test
 * checks every answer against this).
 */
export const RESPONSE_HEADERS = {
  'x-request-id': {
    required: true,
    description: "The request's id: the caller's own when it sent a safe one, else minted. Quote it to support.",
    schema: { type: 'string' },
  },
  'Retry-After': { required: true, description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': {
    required: true,
    description: 'The authentication to use (RFC 6750 Bearer on the services, Basic on the token endpoints) and, for a refused token, why.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    required: true,
    description: 'The quota policy that applies (IETF RateLimit fields): `"credential";q=<requests>;w=<seconds of a full refill>`.',
    schema: { type: 'string', example: '"credential";q=100;w=2' },
  },
  RateLimit: {
    required: true,
    description: 'What remains of that quota: `"credential";r=<requests left>;t=<seconds until full again>`.',
    schema: { type: 'string', example: '"credential";r=87;t=1' },
  },
  Location: { required: true, description: 'Where the created resource is read or managed.', schema: { type: 'string' } },
} as const;

const headerRefs = (...names: (keyof typeof RESPONSE_HEADERS)[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

/** Headers an answer of a status carries besides x-request-id. */
const EXTRA_HEADERS: Record<number, (keyof typeof RESPONSE_HEADERS)[]> = {
  401: ['WWW-Authenticate'],
  429: ['Retry-After', 'RateLimit-Policy', 'RateLimit'],
  503: ['Retry-After'],
};

type ErrorCode = (typeof ERROR_KINDS)[keyof typeof ERROR_KINDS]['error'];

/**
 * An example error_description per code, used when the response's description does not
 * say `code: what happened` itself. Exhaustive: a new code does not compile without one.
 */
const EXAMPLE_DESCRIPTIONS: Record<ErrorCode, string> = {
  invalid_request: 'A field or parameter is missing or malformed; this text names it and the rule it breaks.',
  unsupported_grant_type: 'Only grant_type=client_credentials is supported.',
  invalid_scope: 'scope must be kidsapp:engagement:read.',
  invalid_client: 'Client authentication failed: unknown client, wrong secret or revoked credential.',
  invalid_token: 'The access token is missing, malformed, expired or revoked.',
  insufficient_scope: 'The token needs one of the scopes this operation lists.',
  plan_without_audio: "The subscriber's plan does not include audio.",
  chapter_locked: 'This chapter is not released to the subscriber yet.',
  subscriber_not_entitled: 'The subscriber has no active entitlement for this product.',
  access_denied: 'This media URL has expired. Request a new stream URL.',
  not_found: 'Nothing with this id exists for your partner and environment.',
  audio_not_ready: "The chapter's audio is not rendered yet.",
  active_novel_limit_reached: 'The subscriber already has 3 unfinished novels: finish or remove one first.',
  novel_already_finished: 'The subscriber already finished this novel.',
  novel_not_started: 'The subscriber has not opened this novel.',
  endings_not_available: 'Endings are available once the last chapter is released to the subscriber.',
  ending_already_chosen: 'The subscriber already chose another ending.',
  endpoint_limit_reached: 'This environment already has 10 webhook endpoints: delete one first.',
  conflict: 'No endpoint subscribes to this event type.',
  sandbox_only: 'Test clocks exist in the sandbox only: use a sandbox credential.',
  subscriber_has_data: 'The subscriber already has sandbox data (entitlements): only a subscriber without any can be attached to a test clock.',
  limit_reached: 'This test clock already has 100 subscribers: delete it or use another clock.',
  idempotency_key_in_use: 'A request with this Idempotency-Key is still being processed: retry after Retry-After.',
  idempotency_key_reused: 'This Idempotency-Key was used with another method, path or body: use a new key for a new request.',
  events_expired: 'Events after this seq are no longer kept: resynchronise, then read from after=0.',
  method_not_allowed: 'This path does not answer this method; the Allow header lists those it answers.',
  rate_limited: 'Too many requests: retry after the time in Retry-After.',
  temporarily_unavailable: 'The service cannot reach its database. Retry shortly.',
  server_error: 'The service failed unexpectedly. Retry later; if it persists, contact support with the x-request-id.',
};

/** The response's own words for a code (`code: what happened; …`), else the code's example. */
function exampleDescription(code: ErrorCode, description: string | undefined): string {
  const own = (description ?? '').match(new RegExp(`(?:^|[;,] *)${code}: ([^;]+)`))?.[1].trim();
  return own ? `${own[0].toUpperCase()}${own.slice(1)}${/[.!?]$/.test(own) ? '' : '.'}` : EXAMPLE_DESCRIPTIONS[code];
}

/** The error codes each status can carry, from the one kind→status map. */
const codesOf = (status: number): ErrorCode[] => [
  ...new Set(
    Object.values(ERROR_KINDS)
      .filter((kind) => kind.status === status)
      .map((kind) => kind.error),
  ),
];

/**
 * The example code of an error response: the first code its description names (the
 * decorators describe a response as "code: when"), else the status's first code.
 */
function exampleCode(status: number, description: string | undefined): ErrorCode {
  const codes = codesOf(status);
  const named = (description ?? '').match(/[a-z]+(?:_[a-z]+)+|[a-z]+/g)?.find((word): word is ErrorCode => (codes as string[]).includes(word));
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
        example: { error, error_description: exampleDescription(error, description) },
      },
    },
  };
}

/** The 503 every operation may answer. */
export const DATABASE_UNREACHABLE = 'temporarily_unavailable: the database is unreachable';

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
    responses['503'] ??= { description: DATABASE_UNREACHABLE };
    if (!Object.keys(responses).some((status) => status.startsWith('4'))) {
      responses['400'] = { description: 'invalid_request: the URL is not correctly percent-encoded' };
    }
    for (const [status, response] of Object.entries(responses)) decorate(operation, status, response);
  }
}

/** Headers of a success: a protected route's rate budget, a creation's Location. */
function successHeaders(operation: Operation, code: number): (keyof typeof RESPONSE_HEADERS)[] {
  return [...(isProtected(operation) ? (['RateLimit-Policy', 'RateLimit'] as const) : []), ...(code === 201 ? (['Location'] as const) : [])];
}

function decorate(operation: Operation, status: string, response: { description?: string; headers?: unknown }): void {
  const code = Number(status);
  const headers = headerRefs('x-request-id', ...(code >= 400 ? (EXTRA_HEADERS[code] ?? []) : successHeaders(operation, code)));
  if (code >= 400) {
    // Headers declared before (Idempotency-Key's Retry-After on 409) are kept.
    (operation.responses as Record<string, unknown>)[status] = errorResponse(code, response.description, { ...(response.headers as object), ...headers });
  } else {
    response.headers = { ...(response.headers as object), ...headers };
    response.description ||= 'Success';
  }
}
