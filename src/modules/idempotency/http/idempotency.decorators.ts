import { UseInterceptors } from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor.js';

/**
 * Puts the interceptor on an operation that takes an Idempotency-Key: every one for which
 * `takesIdempotencyKey` holds (test/idempotency/keyed-operations.e2e-spec.ts checks both
 * ways). Per operation, not global: a route without interceptors skips Nest's per-request
 * observable chain, which every read would otherwise pay for nothing (ADR 0123).
 */
export const TakesIdempotencyKey = () => UseInterceptors(IdempotencyInterceptor);
