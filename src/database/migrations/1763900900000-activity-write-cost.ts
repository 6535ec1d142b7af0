import type { MigrationInterface, QueryRunner } from 'typeorm';
import { rollUpFunction } from './helpers/reading-rollup.v1.js';

/**
 * What a write of reading activity costs the database (ADR 0123), measured on the playback
 * PUT's statement: a listener repeats positions within one chapter, so almost every write
 * finds its (reader, chapter, day) already rolled up.
 *
 * - The rollup trigger returns before its advisory locks and four statements when every row
 *   of the statement is already rolled up.
 * - `reading_activity_period` goes: nothing reads `reading_activity` by period since the
 *   report counts from the rollups, and retention drops whole partitions; the index was
 *   only an entry to write per activity row.
 */
export class ActivityWriteCost1763900900000 implements MigrationInterface {
  name = 'ActivityWriteCost1763900900000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(rollUpFunction({ skipWhenRolledUp: true }));
    await db.query('DROP INDEX reading_activity_period');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`CREATE INDEX reading_activity_period
      ON reading_activity (partner_id, environment, occurred_at) INCLUDE (subscriber_id, novel_id, chapter_number)`);
    await db.query(rollUpFunction({ skipWhenRolledUp: false }));
  }
}
