import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { IdempotencyKeyPurge } from './application/idempotency-key-purge.job.js';
import { IdempotencyService } from './application/idempotency.service.js';
import { IdempotencyKeyRepository } from './domain/idempotency-key.repository.js';
import { IdempotencyInterceptor } from './http/idempotency.interceptor.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';
import { IdempotencySubscriberData } from './infrastructure/idempotency.subscriber-data.js';
import { PgIdempotencyKeyRepository } from './infrastructure/pg-idempotency-key.repository.js';

/** Idempotency-Key on every write that takes one (DECISIONS 30): one interceptor for the whole service. */
@Module({
  providers: [
    ...subscriberData(IdempotencySubscriberData),
    { provide: IdempotencyKeyRepository, useClass: PgIdempotencyKeyRepository },
    IdempotencyService,
    IdempotencyKeyPurge,
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
  ],
  exports: [IdempotencyService],
})
export class IdempotencyModule {}
