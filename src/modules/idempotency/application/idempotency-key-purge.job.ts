import { Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { IdempotencyKeyRepository } from '../domain/idempotency-key.repository.js';

/** How often each replica purges; replicas may run it at once (the repository skips locked rows). */
const PURGE_INTERVAL_MS = 10 * 60_000;
const BATCH = 5_000;

/** Deletes the keys kept past their 24 hours, so `idempotency_keys` holds about a day of keyed writes. */
@Injectable()
export class IdempotencyKeyPurge {
  private readonly logger = new Logger(IdempotencyKeyPurge.name);

  constructor(private readonly keys: IdempotencyKeyRepository) {}

  @Interval('idempotency-key-purge', PURGE_INTERVAL_MS)
  async purge(): Promise<number> {
    let purged = 0;
    try {
      // In batches, so that no statement holds many row locks for long.
      let batch: number;
      do {
        batch = await this.keys.purgeExpired(BATCH);
        purged += batch;
      } while (batch === BATCH);
    } catch (error) {
      // The next run tries again; a scheduler callback must not throw.
      this.logger.warn(`Purging expired idempotency keys failed: ${(error as Error).message}`);
    }
    return purged;
  }
}
