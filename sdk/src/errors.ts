/**
 * An error answer of the service: the contract's `error` code and `error_description`, the
 * HTTP status and the answer's `x-request-id` (quote it to support).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The contract's stable code to branch on, such as `chapter_locked` or `rate_limited`. */
  readonly error: string;
  /** The contract's `error_description`: for people, may change. */
  readonly errorDescription: string;
  readonly status: number;
  /** The answer's `x-request-id`. */
  readonly requestId: string | undefined;
  /** Seconds the answer's `Retry-After` asked to wait (429, 503), when it had one. */
  readonly retryAfter: number | undefined;
  /** The operation that failed, such as `listNovels`. */
  readonly operationId: string;
  readonly method: string;
  readonly url: string;
  /** The whole error body as the service sent it. */
  readonly body: unknown;
  readonly headers: Headers;

  constructor(details: {
    error: string;
    errorDescription: string;
    status: number;
    requestId: string | undefined;
    retryAfter: number | undefined;
    operationId: string;
    method: string;
    url: string;
    body: unknown;
    headers: Headers;
  }) {
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

/** The service could not be reached, or the connection failed or timed out before an answer. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
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

/** The event feed skipped a `seq`, which it promises never to do: the iterator stops rather than pass over an event. */
export class FeedGapError extends Error {
  override readonly name = 'FeedGapError';
  constructor(
    readonly after: number,
    readonly seq: number,
  ) {
    super(`the event feed answered seq ${seq} after ${after}: events ${after + 1} to ${seq - 1} are missing`);
  }
}

/** A webhook delivery whose signature, timestamp or headers do not verify: answer it 400. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}
