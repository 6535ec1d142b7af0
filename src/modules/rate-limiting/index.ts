export { RateLimitingModule } from './rate-limiting.module.js';
export { RateLimiter, type TakenToken } from './application/rate-limiter.service.js';
export { NETWORK_BUDGET_MULTIPLE, sourceAddressKey, sourceBudgets } from './domain/source-address.js';
export type { BucketPolicy } from './domain/rate-limit-store.js';
export { ReplicaBuckets } from './domain/replica-buckets.js';
export { IdleBucketPurge } from './application/idle-bucket-purge.service.js';
