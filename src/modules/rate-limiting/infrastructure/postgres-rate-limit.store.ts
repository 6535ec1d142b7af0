import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { RateLimitStore, type BucketPolicy, type Grant } from '../domain/rate-limit-store.js';

/**
 * Buckets in an UNLOGGED table: losing them in a crash only resets the limits, and they
 * cost no WAL. Refill and take happen in one row-locked statement, so concurrent replicas
 * never spend the same token twice.
 */
@Injectable()
export class PostgresRateLimitStore extends RateLimitStore {
  constructor(private readonly db: Db) {
    super();
  }

  async take(key: string, wanted: number, policy: BucketPolicy): Promise<Grant> {
    // refill = the bucket refilled to now; the take is min(wanted, whole tokens in refill).
    const refill = `LEAST($2::float8, b.tokens + EXTRACT(EPOCH FROM clock_timestamp() - b.refreshed_at) * $3::float8)`;
    const [grant] = await this.db.prepared<Grant>(
      'rate-limit.take',
      `INSERT INTO rate_limit_buckets AS b (key, tokens, refreshed_at, last_granted)
       VALUES ($1, $2::float8 - LEAST($4::int, floor($2::float8)), clock_timestamp(), LEAST($4::int, floor($2::float8)))
       ON CONFLICT (key) DO UPDATE
         SET tokens = ${refill} - LEAST($4::int, floor(${refill})),
             last_granted = LEAST($4::int, floor(${refill})),
             refreshed_at = clock_timestamp()
       RETURNING last_granted AS granted, tokens AS remaining`,
      [key, policy.burst, policy.ratePerSecond, wanted],
    );
    return grant ?? { granted: 0, remaining: 0 };
  }

  async giveBack(key: string, count: number, policy: BucketPolicy): Promise<void> {
    await this.db.prepared('rate-limit.give-back', `UPDATE rate_limit_buckets SET tokens = LEAST($2::float8, tokens + $3::float8) WHERE key = $1`, [
      key,
      policy.burst,
      count,
    ]);
  }

  async level(key: string, policy: BucketPolicy): Promise<number> {
    const [row] = await this.db.prepared<{ level: number }>(
      'rate-limit.level',
      `SELECT LEAST($2::float8, tokens + EXTRACT(EPOCH FROM clock_timestamp() - refreshed_at) * $3::float8) AS level
       FROM rate_limit_buckets WHERE key = $1`,
      [key, policy.burst, policy.ratePerSecond],
    );
    return row?.level ?? policy.burst;
  }

  async purgeIdle(before: Date, limit: number): Promise<number> {
    // SKIP LOCKED: a bucket being spent right now is not idle, and replicas purging at the
    // same moment share the rows instead of waiting on each other.
    const rows = await this.db.query<{ key: string }>(
      `DELETE FROM rate_limit_buckets WHERE key IN (
         SELECT key FROM rate_limit_buckets WHERE refreshed_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED
       ) RETURNING key`,
      [before, limit],
    );
    return rows.length;
  }
}
