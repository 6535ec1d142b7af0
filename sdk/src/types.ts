import type { operations, webhooks } from './generated/openapi.js';
import type { OperationId, PagedOperationId, SandboxTwins } from './generated/operations.js';
import type { RetryOptions } from './retry.js';

type Simplify<T> = { [K in keyof T]: T[K] };
type Nothing = Record<never, never>;
type Operation<K> = K extends keyof operations ? operations[K] : never;
type Parameters<K> = Operation<K> extends { parameters: infer P } ? P : never;
type Slot<K, Where extends string> = Parameters<K> extends Partial<Record<Where, infer X>> ? Exclude<X, undefined> : never;

type PathInput<K> = [Slot<K, 'path'>] extends [never] ? Nothing : { path: Slot<K, 'path'> };
type QueryInput<K> = [Slot<K, 'query'>] extends [never]
  ? Nothing
  : Nothing extends Slot<K, 'query'>
    ? { query?: Slot<K, 'query'> }
    : { query: Slot<K, 'query'> };
type Body<K> = Operation<K> extends { requestBody?: infer R } ? (Exclude<R, undefined> extends { content: infer C } ? C[keyof C] : never) : never;
type BodyInput<K> = [Body<K>] extends [never] ? Nothing : undefined extends Operation<K>['requestBody'] ? { body?: Body<K> } : { body: Body<K> };

type Parts<K> = PathInput<K> & QueryInput<K> & BodyInput<K>;

/**
 * What an operation without parameters takes: nothing, so that `listCategories({ retry: … })`
 * (call options in the place of the input) does not compile instead of being ignored.
 */
export type NoInput = Record<string, never>;

/**
 * What an operation takes, as the document describes it: `path` parameters, `query`
 * parameters and the request `body`, each present only when the operation has it
 * (`NoInput` when it has none).
 */
export type Input<K extends OperationId> = keyof Parts<K> extends never ? NoInput : Simplify<Parts<K>>;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type Responses<K> = Operation<K> extends { responses: infer R } ? R : never;
type Content<R> = R extends { content: infer C } ? C[keyof C] : undefined;

/** What an operation answers on success (`undefined` for an answer without a body, such as 204). */
export type Output<K extends OperationId> = Content<Responses<K>[SuccessStatus & keyof Responses<K>]>;

/** `live` or `sandbox`: where a client sends the reading operations. */
export type Environment = 'live' | 'sandbox';

/** The operation a client of environment `E` sends for `K`: on a sandbox client, `K`'s sandbox twin if it has one. */
export type RoutedOperation<E extends Environment, K extends OperationId> = E extends 'sandbox' ? (K extends keyof SandboxTwins ? SandboxTwins[K] : K) : K;

/** What `K` takes on a client of environment `E` (on a client of either, what either takes). */
export type EnvInput<E extends Environment, K extends OperationId> = RoutedOperation<E, K> extends infer R ? (R extends OperationId ? Input<R> : never) : never;

/** What `K` answers on a client of environment `E`. */
export type EnvOutput<E extends Environment, K extends OperationId> =
  RoutedOperation<E, K> extends infer R ? (R extends OperationId ? Output<R> : never) : never;

/** One item of a paged operation's `data` (on a client of environment `E`). */
export type PageItem<K extends PagedOperationId, E extends Environment = Environment> = EnvOutput<E, K> extends { data: (infer T)[] } ? T : never;

/** A successful answer with what came with it. */
export interface ApiResponse<T> {
  data: T;
  status: number;
  headers: Headers;
  /** The answer's `x-request-id`: quote it to support. */
  requestId: string | undefined;
}

/** Per-call settings; every one is optional. */
export interface CallOptions {
  /** Stops the call (and its retries): it rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Time limit of one attempt, in milliseconds (default: the client's `timeoutMs`). */
  timeoutMs?: number | undefined;
  /** Overrides the client's retry settings for this call. */
  retry?: RetryOptions | undefined;
  /**
   * The call's `Idempotency-Key` (1 to 255 printable ASCII characters), sent on each of its
   * attempts. Default: a random UUID per call on every POST, PUT and DELETE but the token
   * requests. Pass your own to make a write safe to repeat across your process's restarts
   * too (your job's id, say): the service answers a repeat with the first answer.
   */
  idempotencyKey?: string | undefined;
  /**
   * Whether a network failure (or 502/504) is retried. Default: yes for reads, PUT, DELETE and
   * every call sent with an `Idempotency-Key`; `false` makes the call fail at once instead.
   */
  idempotent?: boolean | undefined;
  /** Extra request headers, such as your own `x-request-id`. */
  headers?: Record<string, string> | undefined;
}

type EventPayload<K extends keyof webhooks> = webhooks[K]['post'] extends { requestBody: { content: { 'application/json': infer P } } } ? P : never;

/** The payload of any event the service sends (`novel.finished`, `chapter.unlocked`…), by its `event`. */
export type WebhookEvent = { [K in keyof webhooks]: EventPayload<K> }[keyof webhooks];

/** An event type name, such as `novel.finished`. */
export type EventType = WebhookEvent['event'];

/**
 * An event with its place in the event feed: `seq` is 1, 2, 3… per environment, with no
 * gaps. A verified webhook delivery (`VerifiedWebhook`) has it from the `webhook-sequence`
 * header when the header came, so one handler serves both.
 */
export type PartnerEvent = WebhookEvent & { seq: number };
