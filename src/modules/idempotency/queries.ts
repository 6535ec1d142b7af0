import { sql, type SqlFragment } from '../../shared/persistence/sql.js';
import type { HeldIdempotencyKey, KeyedAnswer } from '../../shared/idempotency/keyed-answer.js';

/** The slots of an answer stored by the statement that does the work (ADR 0144). */
export const ANSWER_SLOTS = ['keyPartner', 'keyEnvironment', 'key', 'claimToken', 'answerStatus', 'answerHeaders', 'answerBody'] as const;
export type AnswerSlot = (typeof ANSWER_SLOTS)[number];

/**
 * Stores a keyed write's answer from inside the statement that does the write, when `done`
 * (a condition on that statement's own CTEs) holds: work and answer commit together or not
 * at all. Guarded by the claim token, as the interceptor's own UPDATE: a holder whose lease
 * ran out and was taken over stores nothing. Answers stored so are never sealed (the
 * interceptor stores a sealed one itself). `RETURNING` says whether it was stored. It
 * leaves `expires_at`, set by the claim past 24 h and the lease, so the update touches no
 * indexed column (a HOT update: no index entry written).
 */
export const answerInWork = (s: Record<AnswerSlot, unknown>, done: SqlFragment) => sql`UPDATE idempotency_keys
     SET response_status = ${s.answerStatus}::smallint, response_headers = ${s.answerHeaders}::jsonb, response_body = ${s.answerBody}::text,
         response_sealed = false
   WHERE partner_id = ${s.keyPartner}::uuid AND environment = ${s.keyEnvironment}::text AND key = ${s.key}::text AND claim_token = ${s.claimToken}::uuid
     AND ${done}
  RETURNING true AS stored`;

/** The arguments of ANSWER_SLOTS for `held` and `answer`. */
export const answerArguments = (held: HeldIdempotencyKey, answer: KeyedAnswer): Record<AnswerSlot, unknown> => ({
  keyPartner: held.partnerId,
  keyEnvironment: held.environment,
  key: held.key,
  claimToken: held.claimToken,
  answerStatus: answer.status,
  answerHeaders: answer.headers,
  answerBody: answer.body,
});
