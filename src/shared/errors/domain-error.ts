/**
 * What can go wrong, named for the caller's situation, not for a protocol. Domain and
 * application code throw DomainError with one of these; only `api-error.ts` knows which
 * HTTP status and contract code each becomes, and a kind added here does not compile
 * until it is mapped there.
 */
export type ErrorKind =
  | 'invalid_request'
  | 'novel_not_found'
  | 'payload_too_large'
  | 'request_timeout'
  | 'method_not_allowed'
  | 'headers_too_large'
  | 'not_found'
  | 'audio_not_ready'
  | 'invalid_token'
  | 'invalid_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'insufficient_scope'
  | 'plan_without_audio'
  | 'chapter_locked'
  | 'subscriber_not_entitled'
  | 'access_denied'
  | 'active_novel_limit_reached'
  | 'novel_already_finished'
  | 'novel_not_started'
  | 'endings_not_available'
  | 'ending_already_chosen'
  | 'endpoint_limit_reached'
  | 'sandbox_only'
  | 'subscriber_has_data'
  | 'limit_reached'
  | 'conflict'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  | 'events_expired'
  | 'rate_limited'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * What some failures tell the caller besides their description, as facts: the HTTP edge
 * renders them (Retry-After, WWW-Authenticate, the RateLimit fields); below it nobody
 * knows they are headers.
 */
export interface ErrorDetails {
  /** Seconds before a retry can succeed. */
  retryAfterSeconds?: number;
  /** How to authenticate, and why a credential was refused (an RFC 7235 challenge). */
  challenge?: string;
  /** The quota that refused the request and what is left of it (IETF RateLimit fields). */
  rateLimit?: { policy: string; remaining: string };
}

/** A rule refused the request: the kind of failure and a description meant for a partner's engineer. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly description: string,
    readonly details: ErrorDetails = {},
  ) {
    super(description);
    this.name = 'DomainError';
  }
}

export const invalidRequest = (description: string) => new DomainError('invalid_request', description);

export const novelNotFound = (novelId: string) => new DomainError('novel_not_found', `Novel "${novelId}" does not exist or was removed from the catalog.`);
