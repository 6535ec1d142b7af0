import { DomainError, type ErrorDetails, type ErrorKind } from './domain-error.js';

export { invalidRequest, novelNotFound, type ErrorKind } from './domain-error.js';

/**
 * Every kind of failure, with the HTTP status and the contract's `error` code
 * it answers with (DECISIONS 5). Keys are what went wrong; several share a contract code
 * (a missing novel is a 404 `invalid_request`, a bad field a 400 `invalid_request`).
 * Adding a kind without its status and code does not compile.
 */
export const ERROR_KINDS = {
  invalid_request: { status: 400, error: 'invalid_request' },
  novel_not_found: { status: 404, error: 'invalid_request' },
  payload_too_large: { status: 413, error: 'invalid_request' },
  request_timeout: { status: 408, error: 'invalid_request' },
  method_not_allowed: { status: 405, error: 'method_not_allowed' },
  headers_too_large: { status: 431, error: 'invalid_request' },
  not_found: { status: 404, error: 'not_found' },
  audio_not_ready: { status: 404, error: 'audio_not_ready' },
  invalid_token: { status: 401, error: 'invalid_token' },
  invalid_client: { status: 401, error: 'invalid_client' },
  unsupported_grant_type: { status: 400, error: 'unsupported_grant_type' },
  invalid_scope: { status: 400, error: 'invalid_scope' },
  insufficient_scope: { status: 403, error: 'insufficient_scope' },
  plan_without_audio: { status: 403, error: 'plan_without_audio' },
  chapter_locked: { status: 403, error: 'chapter_locked' },
  subscriber_not_entitled: { status: 403, error: 'subscriber_not_entitled' },
  access_denied: { status: 403, error: 'access_denied' },
  active_novel_limit_reached: { status: 409, error: 'active_novel_limit_reached' },
  novel_already_finished: { status: 409, error: 'novel_already_finished' },
  novel_not_started: { status: 409, error: 'novel_not_started' },
  endings_not_available: { status: 409, error: 'endings_not_available' },
  ending_already_chosen: { status: 409, error: 'ending_already_chosen' },
  endpoint_limit_reached: { status: 409, error: 'endpoint_limit_reached' },
  sandbox_only: { status: 403, error: 'sandbox_only' },
  subscriber_has_data: { status: 409, error: 'subscriber_has_data' },
  limit_reached: { status: 409, error: 'limit_reached' },
  conflict: { status: 409, error: 'conflict' },
  idempotency_key_in_use: { status: 409, error: 'idempotency_key_in_use' },
  idempotency_key_reused: { status: 422, error: 'idempotency_key_reused' },
  events_expired: { status: 410, error: 'events_expired' },
  rate_limited: { status: 429, error: 'rate_limited' },
  temporarily_unavailable: { status: 503, error: 'temporarily_unavailable' },
  server_error: { status: 500, error: 'server_error' },
} as const satisfies Record<ErrorKind, { status: number; error: string }>;

/** The response headers that say what a failure's details say. */
function headersOf(details: ErrorDetails): Record<string, string> {
  const headers: Record<string, string> = {};
  if (details.challenge !== undefined) headers['WWW-Authenticate'] = details.challenge;
  if (details.rateLimit) {
    headers['RateLimit-Policy'] = details.rateLimit.policy;
    headers.RateLimit = details.rateLimit.remaining;
  }
  if (details.retryAfterSeconds !== undefined) headers['Retry-After'] = String(details.retryAfterSeconds);
  return headers;
}

/** The contract's error body (RFC 6749 section 5.2 style). */
export interface ErrorBody {
  error: string;
  error_description: string;
}

/**
 * A failure as the HTTP layer answers it: a domain error's kind and description, plus the
 * response headers its details call for. Built only at the HTTP edge (controllers, guards,
 * the bootstrap hooks, the error filter); below it code throws DomainError and never sees a
 * status or a header.
 */
export class ApiError extends DomainError {
  constructor(
    kind: ErrorKind,
    description: string,
    /** Extra response headers, such as `Allow`, beside those its details render. */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(kind, description);
    this.name = 'ApiError';
  }

  static from(error: DomainError): ApiError {
    return error instanceof ApiError ? error : new ApiError(error.kind, error.description, headersOf(error.details));
  }

  get status(): number {
    return ERROR_KINDS[this.kind].status;
  }

  get body(): ErrorBody {
    return { error: ERROR_KINDS[this.kind].error, error_description: this.description };
  }
}
