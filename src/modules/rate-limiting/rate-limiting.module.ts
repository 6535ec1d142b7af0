import { Module } from '@nestjs/common';
import { IdleBucketPurge } from './application/idle-bucket-purge.service.js';
import { RateLimiter } from './application/rate-limiter.service.js';
import { RateLimitStore } from './domain/rate-limit-store.js';
import { PostgresRateLimitStore } from './infrastructure/postgres-rate-limit.store.js';

@Module({
  providers: [{ provide: RateLimitStore, useClass: PostgresRateLimitStore }, RateLimiter, IdleBucketPurge],
  exports: [RateLimiter],
})
export class RateLimitingModule {}
