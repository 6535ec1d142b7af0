import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { ANSWER_STORED_BY_WORK, IdempotencyInterceptor } from './idempotency.interceptor.js';

/**
 * Puts the interceptor on an operation that takes an Idempotency-Key: every one for which
 * `takesIdempotencyKey` holds (test/idempotency/keyed-operations.e2e-spec.ts checks both
 * ways). Per operation, not global: a route without interceptors skips Nest's per-request
 * observable chain, which every read would otherwise pay for nothing (ADR 0123).
 *
 * `answerStoredByWork`: the work is one statement that stores the answer with it (the
 * playback PUT, ADR 0144), so it needs no transaction around it to commit both together
 * (ADR 0158); every other keyed work runs in one.
 */
export const TakesIdempotencyKey = ({ answerStoredByWork = false } = {}) =>
  applyDecorators(UseInterceptors(IdempotencyInterceptor), SetMetadata(ANSWER_STORED_BY_WORK, answerStoredByWork));
