export { IdempotencyModule } from './idempotency.module.js';
export { IdempotencyKeyPurge } from './application/idempotency-key-purge.job.js';
