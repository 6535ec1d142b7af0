import { apiErrorFor, ConnectionError, TimeoutError, type ApiError } from './errors.js';
import type { ErrorCode } from './generated/errors.js';
import type { OperationSpec } from './generated/operations.js';
import { backoffDelay, follow, parseRetryAfter, retryAfterDelay, sleep, type RetryEvent, type RetryOptions } from './retry.js';
import type { ApiResponse, CallOptions } from './types.js';

/** Methods whose repetition changes nothing more than the first request did (RFC 9110 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/**
 * The methods that take an `Idempotency-Key` (DECISIONS 30): every write but the token
 * requests (the operations authenticated by the client id and secret), which are safe to
 * repeat as they are.
 */
const KEYED = new Set(['POST', 'PUT', 'DELETE']);
const takesIdempotencyKey = (spec: OperationSpec) => KEYED.has(spec.method) && spec.auth !== 'basic';

/** The header's rule (DECISIONS 30): 1 to 255 printable ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** What an operation is sent with: its path, query and body, as `Input` spells them. */
export interface RawInput {
  path?: Record<string, string | number>;
  query?: Record<string, unknown>;
  body?: unknown;
}

export interface TransportSettings {
  baseUrl: string;
  fetch: typeof fetch;
  clock: () => number;
  timeoutMs: number;
  retry: Required<RetryOptions>;
  userAgent: string;
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** The Authorization header value for an operation's credential, if it takes one. */
  authorization(auth: OperationSpec['auth']): Promise<string | undefined>;
  /** The service refused this Authorization value as `invalid_token`. */
  refused(auth: OperationSpec['auth'], authorization: string): void;
}

/**
 * Sends one operation: builds the request from its spec and input, attaches the credential
 * and, on a write, one `Idempotency-Key` for all its attempts; retries 429 and 503 after
 * `Retry-After`, network failures and 502/504 of idempotent or keyed calls, and a key still
 * at work (409 `idempotency_key_in_use`), within the retry bounds; fetches a new token once
 * on `invalid_token`, and turns an error answer into the `ApiError` of its status.
 */
export class Transport {
  constructor(private readonly settings: TransportSettings) {}

  async send(operationId: string, spec: OperationSpec, input: RawInput = {}, options: CallOptions = {}): Promise<ApiResponse<unknown>> {
    const retry = { ...this.settings.retry, ...options.retry };
    const url = this.url(spec.path, input);
    const method = spec.method;
    const idempotencyKey = takesIdempotencyKey(spec)
      ? (options.idempotencyKey ?? new Headers(options.headers).get('idempotency-key') ?? randomKey())
      : undefined;
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new TypeError(`an Idempotency-Key is 1 to 255 printable ASCII characters, not ${JSON.stringify(idempotencyKey)}`);
    }
    // The service answers a repeated key with the first answer, doing nothing twice: a keyed write is as safe to repeat as a read.
    const idempotent = options.idempotent ?? (IDEMPOTENT.has(method) || idempotencyKey !== undefined);
    const body = encodeBody(spec.body, input.body);
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    let attempts = 0;
    let retries = 0;
    let tokenRefreshed = false;
    const wait = async (event: Omit<RetryEvent, 'operationId' | 'method' | 'url' | 'attempt'>) => {
      retries += 1;
      this.settings.onRetry?.({ operationId, method, url, attempt: attempts, ...event });
      await sleep(event.delayMs, options.signal);
    };

    for (;;) {
      attempts += 1;
      const headers = new Headers(options.headers);
      headers.set('accept', 'application/json');
      headers.set('user-agent', this.settings.userAgent);
      if (body) headers.set('content-type', body.type);
      if (idempotencyKey !== undefined) headers.set('idempotency-key', idempotencyKey);
      const authorization = await this.settings.authorization(spec.auth);
      if (authorization) headers.set('authorization', authorization);

      const attempt = withTimeout(timeoutMs, options.signal);
      let response: Response;
      let text: string;
      try {
        response = await this.settings.fetch(url, { method, headers, body: body?.content ?? null, signal: attempt.signal });
        // Read here, under the same time limit: a connection can also fail mid-answer.
        text = await response.text();
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        const reason = attempt.timedOut() ? `no answer within ${timeoutMs} ms` : describe(error);
        if (idempotent && retries < retry.maxRetries) {
          await wait({ reason: 'network', delayMs: backoffDelay(retries + 1, retry), error });
          continue;
        }
        const details = { operationId, method, url, attempts, reason, cause: error };
        throw attempt.timedOut() ? new TimeoutError(details) : new ConnectionError(details);
      } finally {
        attempt.clear();
      }

      const requestId = response.headers.get('x-request-id') ?? undefined;
      if (response.ok) return { data: decode(response, text), status: response.status, headers: response.headers, requestId };

      const error = apiError(response, text, { operationId, method, url, now: this.settings.clock() });
      if (
        response.status === 401 &&
        error.error === 'invalid_token' &&
        authorization &&
        (spec.auth === 'platform' || spec.auth === 'kids') &&
        !tokenRefreshed
      ) {
        // The token expired early (a clock ahead of ours), or its signing key was retired: once more, with a new one.
        tokenRefreshed = true;
        this.settings.refused(spec.auth, authorization);
        this.settings.onRetry?.({ operationId, method, url, attempt: attempts, reason: 'token_refresh', delayMs: 0, status: 401, requestId });
        continue;
      }
      const status = response.status;
      // The first request under this key is still being processed (ours, cut off, or a twin of it): its answer comes after Retry-After.
      const keyInUse = status === 409 && error.error === 'idempotency_key_in_use' && idempotencyKey !== undefined;
      const retryable = status === 429 || status === 503 || keyInUse || (idempotent && (status === 502 || status === 504));
      if (!retryable || retries >= retry.maxRetries) throw error;
      if (error.retryAfter !== undefined && error.retryAfter * 1000 > retry.maxRetryAfterMs) throw error;
      const delayMs = error.retryAfter !== undefined ? retryAfterDelay(error.retryAfter) : backoffDelay(retries + 1, retry);
      const reason = status === 429 ? 'rate_limited' : keyInUse ? 'idempotency_key_in_use' : 'unavailable';
      await wait({ reason, delayMs, status, retryAfter: error.retryAfter, requestId });
    }
  }

  private url(template: string, input: RawInput): string {
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = input.path?.[name];
      if (value === undefined || value === null || value === '') throw new TypeError(`${template} needs the path parameter ${name}`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
    }
    const search = query.toString();
    return `${this.settings.baseUrl}${path}${search ? `?${search}` : ''}`;
  }
}

function encodeBody(kind: OperationSpec['body'], body: unknown): { type: string; content: string } | undefined {
  if (!kind || body === undefined) return undefined;
  if (kind === 'json') return { type: 'application/json', content: JSON.stringify(body) };
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) if (value !== undefined && value !== null) form.append(name, String(value));
  return { type: 'application/x-www-form-urlencoded', content: form.toString() };
}

function decode(response: Response, text: string): unknown {
  if (text === '') return undefined;
  return /[/+]json\b/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : text;
}

function apiError(response: Response, text: string, context: { operationId: string; method: string; url: string; now: number }): ApiError {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: a proxy's page, say. Kept as text.
  }
  const contract =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string; error_description?: unknown })
      : undefined;
  return apiErrorFor({
    // The service's own code, typed as the contract's codes (one a newer service added is still its string at run time).
    error: (contract?.error ?? 'unexpected_response') as ErrorCode,
    errorDescription: typeof contract?.error_description === 'string' ? contract.error_description : text.slice(0, 200) || response.statusText,
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfter: parseRetryAfter(response.headers.get('retry-after'), context.now),
    operationId: context.operationId,
    method: context.method,
    url: context.url,
    body,
    headers: response.headers,
  });
}

/** An AbortSignal for one attempt: the caller's, and the attempt's time limit. */
function withTimeout(ms: number, caller: AbortSignal | undefined): { signal: AbortSignal; timedOut(): boolean; clear(): void } {
  const outer = caller && follow(caller);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`no answer within ${ms} ms`));
  }, ms);
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** A random key for one call and its retries (Web Crypto: Node 20 and edge runtimes alike). */
function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

/** fetch's "fetch failed" says little: the cause names the refusal or reset. */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
