import type { MigrationInterface, QueryRunner } from 'typeorm';
import { READER_KEY, CHAPTER_KEY, rollUp, rollUpFunction } from './helpers/reading-rollup.v1.js';

/**
 * Rollups of reading activity that let the engagement report (DECISIONS 14, 20) count
 * distinct readers and distinct chapters over any period without de-duplicating raw
 * events:
 *
 * - `reading_reader_days`: one row per (partner, environment, subscriber, UTC day) with
 *   activity;
 * - `reading_chapter_days`: one row per (partner, environment, subscriber, novel, chapter,
 *   UTC day) with activity.
 *
 * Each row also holds `previous_day`, the key's latest earlier day with activity
 * (`-infinity` when none). A key is active in [start, end] exactly when it has a row in
 * that range whose `previous_day` is before `start`, and only one such row: so a distinct
 * count over a period is a plain count of index entries, with no sort and no hash table.
 *
 * A statement-level trigger keeps both in step with every insert into `reading_activity`
 * (the activity recorder, bulk loads, fixtures), in the writer's transaction. Writers of
 * one subscriber take turns on advisory locks so that concurrent writes of adjacent days
 * still chain exactly; activity arriving out of order re-links the later days it precedes.
 */
export class ReadingRollup1763900400000 implements MigrationInterface {
  name = 'ReadingRollup1763900400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE reading_reader_days (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        day date NOT NULL,
        previous_day date NOT NULL,
        PRIMARY KEY (partner_id, environment, subscriber_id, day)
      );
      CREATE INDEX reading_reader_days_period ON reading_reader_days (partner_id, environment, day) INCLUDE (previous_day);

      CREATE TABLE reading_chapter_days (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL,
        day date NOT NULL,
        previous_day date NOT NULL,
        PRIMARY KEY (partner_id, environment, subscriber_id, novel_id, chapter_number, day)
      );
      CREATE INDEX reading_chapter_days_period ON reading_chapter_days (partner_id, environment, day) INCLUDE (previous_day);

      ${rollUpFunction({ skipWhenRolledUp: false })}

      CREATE TRIGGER reading_activity_roll_up
        AFTER INSERT ON reading_activity
        REFERENCING NEW TABLE AS new_activity
        FOR EACH STATEMENT EXECUTE FUNCTION reading_activity_roll_up();

      -- Activity recorded before this migration.
      ${rollUp('reading_reader_days', READER_KEY, 'reading_activity')}
      ${rollUp('reading_chapter_days', CHAPTER_KEY, 'reading_activity')}
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER reading_activity_roll_up ON reading_activity;
      DROP FUNCTION reading_activity_roll_up();
      DROP TABLE reading_chapter_days, reading_reader_days;
    `);
  }
}
