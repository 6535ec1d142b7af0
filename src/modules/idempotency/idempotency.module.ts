import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { IdempotencyKeyPurge } from './application/idempotency-key-purge.job.js';
import { IdempotencyService } from './application/idempotency.service.js';
import { KeyedTransactionSlots } from './application/keyed-transaction-slots.js';
import { IdempotencyKeyRepository } from './domain/idempotency-key.repository.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';
import { IdempotencySubscriberData } from './infrastructure/idempotency.subscriber-data.js';
import { PgIdempotencyKeyRepository } from './infrastructure/pg-idempotency-key.repository.js';

/**
 * Idempotency-Key on every write that takes one (DECISIONS 30): one interceptor, put on each
 * such operation with `@TakesIdempotencyKey()`. Global, so that the controllers' modules
 * can build it with this module's service.
 */
@Global()
@Module({
  providers: [
    ...subscriberData(IdempotencySubscriberData),
    { provide: IdempotencyKeyRepository, useClass: PgIdempotencyKeyRepository },
    IdempotencyService,
    { provide: KeyedTransactionSlots, useFactory: (config: AppConfig) => KeyedTransactionSlots.forPool(config.databasePoolSize), inject: [AppConfig] },
    IdempotencyKeyPurge,
  ],
  exports: [IdempotencyService, KeyedTransactionSlots],
})
export class IdempotencyModule {}
