import { Module } from '@nestjs/common';
import { RateLimiter } from './application/rate-limiter.service.js';
import { RateLimitStore } from './domain/rate-limit-store.js';
import { PostgresRateLimitStore } from './infrastructure/postgres-rate-limit.store.js';

@Module({
  providers: [{ provide: RateLimitStore, useClass: PostgresRateLimitStore }, RateLimiter],
  exports: [RateLimiter],
})
export class RateLimitingModule {}
