import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An index of `reading_activity` by subscriber, for a subscriber's export and erasure
 * (DECISIONS 29). Without it both read every partition of every partner: 10 000 000 rows
 * took 0.5–0.7 s to erase 50 of, and the raw activity of a service at a million daily
 * readers, kept 400 days, is billions of rows, past the 30 s statement limit. With it the
 * same erasure read 103 buffers in 0.2 ms. Each activity row costs one more index entry:
 * 0.250 → 0.252–0.262 ms per row written with its rollup, measured in the server; activity is
 * written a few times per reader and day (migration 1763900900000 dropped the period index
 * for the same cost, when nothing read by period).
 *
 * On a partitioned table this builds every partition's index under a lock that holds
 * activity writes back (9.9 s for 10 000 000 rows here). Where that is too long, build each
 * partition's index first with CREATE INDEX CONCURRENTLY (docs/operations.md): this
 * statement then attaches them instead of building.
 */
export class ReadingActivityBySubscriber1764201000000 implements MigrationInterface {
  name = 'ReadingActivityBySubscriber1764201000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX reading_activity_subscriber ON reading_activity (partner_id, environment, subscriber_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX reading_activity_subscriber`);
  }
}
