import { Inject, Injectable, Logger } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { AppConfig } from '../../../config/app-config.js';
import { RateLimitStore } from '../domain/rate-limit-store.js';

/** How often each replica purges; replicas may run it at once (the store skips locked rows). */
const PURGE_INTERVAL_MS = 10 * 60_000;
const BATCH = 5_000;
/** Idle at least this long before a bucket is purged, whatever the policies. */
const MINIMUM_IDLE_SECONDS = 3600;

/**
 * Keeps `rate_limit_buckets` small: it gains a row per credential and per (client id,
 * address) of a failed token request, and would otherwise keep them all. A bucket idle for
 * longer than any bucket takes to refill is full, the same as no row, so deleting it
 * changes no decision.
 */
@Injectable()
export class IdleBucketPurge {
  private readonly logger = new Logger(IdleBucketPurge.name);
  private readonly idleSeconds: number;

  constructor(
    private readonly store: RateLimitStore,
    @Inject(AppConfig) config: AppConfig,
  ) {
    // The credential buckets refill in burst / rate seconds, the token failure buckets in a minute.
    const longestRefill = Math.max(config.rateLimitBurst / config.rateLimitRps, 60);
    this.idleSeconds = Math.max(MINIMUM_IDLE_SECONDS, Math.ceil(longestRefill));
  }

  @Interval('rate-limit-bucket-purge', PURGE_INTERVAL_MS)
  async purge(): Promise<number> {
    const before = new Date(Date.now() - this.idleSeconds * 1000);
    let purged = 0;
    try {
      // In batches, so that no statement holds many row locks for long.
      let batch: number;
      do {
        batch = await this.store.purgeIdle(before, BATCH);
        purged += batch;
      } while (batch === BATCH);
    } catch (error) {
      // The next run tries again; a scheduler callback must not throw.
      this.logger.warn(`Purging idle rate-limit buckets failed: ${(error as Error).message}`);
    }
    return purged;
  }
}
