/** What Fastify sends a JSON body as. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An answer of a keyed write as stored and replayed (ADR 0144): status, the headers a client reads, the body's exact text. */
export interface KeyedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answer a handler that returns `value` with `status` sends, as the idempotency interceptor stores it. */
export const jsonAnswer = (status: number, value: unknown): KeyedAnswer => ({
  status,
  headers: { 'content-type': JSON_CONTENT_TYPE },
  body: JSON.stringify(value),
});

/** Whether two answers are the same bytes: status, headers and body. */
export function sameAnswer(a: KeyedAnswer, b: KeyedAnswer): boolean {
  const headers = (answer: KeyedAnswer) => JSON.stringify(Object.entries(answer.headers).sort(([x], [y]) => x.localeCompare(y)));
  return a.status === b.status && a.body === b.body && headers(a) === headers(b);
}

/**
 * The Idempotency-Key a request holds while its handler runs, offered to the handler (ADR
 * 0144): a write done in one statement may store its answer in that statement
 * (`answerInWork`, idempotency's queries.ts), guarded by the claim token, and say so in
 * `storedInWork`. The interceptor then checks that the handler's answer is those bytes and
 * sends no statement of its own: the keyed write costs the claim alone.
 */
export interface HeldIdempotencyKey {
  readonly partnerId: string;
  readonly environment: string;
  readonly key: string;
  readonly claimToken: string;
  /** The answer the work's own statement stored, if it did. */
  storedInWork?: KeyedAnswer;
}

/** A write that may store its answer with its work: the held key, and the answer its result will be. */
export interface AnswerWithWork<T> {
  held: HeldIdempotencyKey;
  answerFor(result: T): KeyedAnswer;
}
