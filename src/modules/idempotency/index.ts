export { IdempotencyModule } from './idempotency.module.js';
export { IdempotencyKeyPurge } from './application/idempotency-key-purge.job.js';
export { IdempotencyService, type AnswerSealedUnderOtherSecret } from './application/idempotency.service.js';
export { KeyedTransactionSlots } from './application/keyed-transaction-slots.js';
export { TakesIdempotencyKey } from './http/idempotency.decorators.js';
