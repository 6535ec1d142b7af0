import type { ErrorCode, ErrorCodesByStatus } from './generated/errors.js';

/** The codes answers of these statuses may carry, and `unexpected_response` (an answer without the contract's body). */
type CodesOf<Status extends keyof ErrorCodesByStatus> = ErrorCodesByStatus[Status] | 'unexpected_response';

/** What every error of the SDK shares: `catch (error) { if (error instanceof PartnerError) … }`. */
export class PartnerError extends Error {
  override readonly name: string = 'PartnerError';
}

/** What an error answer is made of. */
export interface ApiErrorDetails {
  error: ErrorCode;
  errorDescription: string;
  status: number;
  requestId: string | undefined;
  retryAfter: number | undefined;
  operationId: string;
  method: string;
  url: string;
  body: unknown;
  headers: Headers;
}

/**
 * An error answer of the service: the contract's `error` code and `error_description`, the
 * HTTP status and the answer's `x-request-id` (quote it to support). Each status family has
 * its subclass (`RateLimitError`, `NotFoundError`…), whose `error` is typed as the codes of
 * its statuses.
 */
export class ApiError extends PartnerError {
  override readonly name: string = 'ApiError';
  /** The contract's stable code to branch on, such as `chapter_locked` or `rate_limited`. */
  readonly error: ErrorCode;
  /** The contract's `error_description`: for people, may change. */
  readonly errorDescription: string;
  readonly status: number;
  /** The answer's `x-request-id`. */
  readonly requestId: string | undefined;
  /** Seconds the answer's `Retry-After` asked to wait (429, 503, 409 `idempotency_key_in_use`), when it had one. */
  readonly retryAfter: number | undefined;
  /** The operation that failed, such as `listNovels`. */
  readonly operationId: string;
  readonly method: string;
  readonly url: string;
  /** The whole error body as the service sent it. */
  readonly body: unknown;
  readonly headers: Headers;

  constructor(details: ApiErrorDetails) {
    super(
      `${details.method} ${details.url} answered ${details.status} ${details.error}: ${details.errorDescription}${details.requestId ? ` (x-request-id ${details.requestId})` : ''}`,
    );
    this.error = details.error;
    this.errorDescription = details.errorDescription;
    this.status = details.status;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
    this.operationId = details.operationId;
    this.method = details.method;
    this.url = details.url;
    this.body = details.body;
    this.headers = details.headers;
  }
}

/** 400, 405, 413 or 422: the request is wrong as sent (`invalid_request`, `idempotency_key_reused`…); fix it rather than retry. */
export class InvalidRequestError extends ApiError {
  override readonly name: string = 'InvalidRequestError';
  declare readonly error: CodesOf<400 | 405 | 413 | 422>;
}

/** 401: the credential or the token was refused (`invalid_client`, `invalid_token` after one renewal). */
export class AuthenticationError extends ApiError {
  override readonly name: string = 'AuthenticationError';
  declare readonly error: CodesOf<401>;
}

/** 403: the credential may not do this (`insufficient_scope`, `sandbox_only`), or the subscriber may not (`chapter_locked`…). */
export class PermissionError extends ApiError {
  override readonly name: string = 'PermissionError';
  declare readonly error: CodesOf<403>;
}

/** 404 or 410: no such thing (`not_found`, `invalid_request` for a novel removed), or no longer (`events_expired`). */
export class NotFoundError extends ApiError {
  override readonly name: string = 'NotFoundError';
  declare readonly error: CodesOf<404 | 410>;
}

/** 409: the state forbids it (`active_novel_limit_reached`, `ending_already_chosen`…), or the same `Idempotency-Key` is still at work. */
export class ConflictError extends ApiError {
  override readonly name: string = 'ConflictError';
  declare readonly error: CodesOf<409>;
}

/** 429 `rate_limited` after the retries allowed; `retryAfter` says how long the service asked to wait. */
export class RateLimitError extends ApiError {
  override readonly name: string = 'RateLimitError';
  declare readonly error: CodesOf<429>;
}

/** 5xx after the retries allowed: `temporarily_unavailable` (503), `server_error` (500, a bug of the service), or a proxy's answer. */
export class ServerError extends ApiError {
  override readonly name: string = 'ServerError';
  declare readonly error: CodesOf<500 | 503>;
}

/** The `ApiError` subclass of an answer's status family (an `ApiError` itself for a status outside them). */
export function apiErrorFor(details: ApiErrorDetails): ApiError {
  const { status } = details;
  if (status === 401) return new AuthenticationError(details);
  if (status === 403) return new PermissionError(details);
  if (status === 404 || status === 410) return new NotFoundError(details);
  if (status === 409) return new ConflictError(details);
  if (status === 429) return new RateLimitError(details);
  if (status === 400 || status === 405 || status === 413 || status === 422) return new InvalidRequestError(details);
  if (status >= 500) return new ServerError(details);
  return new ApiError(details);
}

/** The service could not be reached, or the connection failed before an answer (refused, reset, DNS). */
export class ConnectionError extends PartnerError {
  override readonly name: string = 'ConnectionError';
  readonly operationId: string;
  readonly method: string;
  readonly url: string;
  /** Attempts made, retries included. */
  readonly attempts: number;

  constructor(details: { operationId: string; method: string; url: string; attempts: number; reason: string; cause: unknown }) {
    super(`${details.method} ${details.url} failed: ${details.reason} (after ${details.attempts} attempt${details.attempts === 1 ? '' : 's'})`, {
      cause: details.cause,
    });
    this.operationId = details.operationId;
    this.method = details.method;
    this.url = details.url;
    this.attempts = details.attempts;
  }
}

/** No answer within the time limit (`timeoutMs`) of the last attempt: a `ConnectionError` too. */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
}

/** The event feed skipped a `seq`, which it promises never to do: the iterator stops rather than pass over an event. */
export class FeedGapError extends PartnerError {
  override readonly name: string = 'FeedGapError';
  constructor(
    readonly after: number,
    readonly seq: number,
  ) {
    super(`the event feed answered seq ${seq} after ${after}: events ${after + 1} to ${seq - 1} are missing`);
  }
}

/** A webhook delivery whose signature, timestamp or headers do not verify: answer it 400. */
export class WebhookVerificationError extends PartnerError {
  override readonly name: string = 'WebhookVerificationError';
}
