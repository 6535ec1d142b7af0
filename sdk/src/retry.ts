/** When and how long the SDK waits before it sends a call again. */
export interface RetryOptions {
  /** Retries after the first attempt (default 4; `Infinity` for ever, as the event feed does). */
  maxRetries?: number;
  /**
   * The longest `Retry-After` honoured, in milliseconds (default 60 000): an answer asking
   * for a longer wait fails at once with its `ApiError` (`retryAfter` says how long).
   */
  maxRetryAfterMs?: number;
  /** First wait after a network failure or a 429/503 without `Retry-After`, doubled each time (default 500 ms). */
  backoffMs?: number;
  /** The longest such wait (default 10 000 ms). */
  maxBackoffMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 4, maxRetryAfterMs: 60_000, backoffMs: 500, maxBackoffMs: 10_000 };

/** Reported to `onRetry` before each wait. */
export interface RetryEvent {
  operationId: string;
  method: string;
  url: string;
  /** The attempt that failed: 1 for the first. */
  attempt: number;
  /**
   * `rate_limited` (429), `unavailable` (503, or 502/504 on an idempotent or keyed call), `network`,
   * `idempotency_key_in_use` (409: the first request under the call's key is still being processed),
   * or `token_refresh` (401 `invalid_token`: a new token, then once more).
   */
  reason: 'rate_limited' | 'unavailable' | 'network' | 'idempotency_key_in_use' | 'token_refresh';
  /** How long the SDK waits before the next attempt. */
  delayMs: number;
  status?: number | undefined;
  /** The `Retry-After` seconds the answer asked for. */
  retryAfter?: number | undefined;
  requestId?: string | undefined;
  error?: unknown;
}

/** Seconds of a `Retry-After` value: delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The wait after an answer that said `Retry-After`: never shorter than asked, plus up to half
 * again (at most 2 s) at random, so that callers refused together do not come back together.
 */
export function retryAfterDelay(seconds: number, random = Math.random): number {
  const asked = seconds * 1000;
  return Math.round(asked + random() * Math.min(asked / 2, 2_000));
}

/** Exponential backoff with jitter: between half and all of backoff × 2^(attempt-1), capped. */
export function backoffDelay(attempt: number, options: Required<RetryOptions>, random = Math.random): number {
  const ceiling = Math.min(options.maxBackoffMs, options.backoffMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * A signal that aborts with `signal`, to listen on instead of it: many calls sharing one
 * signal (a shutdown signal, say) then add no listeners to it, which Node would report as
 * a possible leak past ten. (AbortSignal.any from Node 20.3; before it, the signal itself.)
 */
export function follow(signal: AbortSignal): AbortSignal {
  return typeof AbortSignal.any === 'function' ? AbortSignal.any([signal]) : signal;
}

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, outer?: AbortSignal): Promise<void> {
  const signal = outer && follow(outer);
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
