import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The `chapter.unlocked` schedule (DECISIONS 23): one row per opened, unfinished novel with
 * the next chapter to announce and its release instant. The job reads only the rows due,
 * through the index on that instant, so a run costs what is due, not the number of readers.
 */
export class ChapterUnlockSchedule1763900720000 implements MigrationInterface {
  name = 'ChapterUnlockSchedule1763900720000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE chapter_unlock_schedule (
        partner_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        started_at timestamptz NOT NULL,
        not_before timestamptz NOT NULL,
        next_chapter integer NOT NULL CHECK (next_chapter >= 2),
        next_unlock_at timestamptz NOT NULL,
        PRIMARY KEY (partner_id, environment, subscriber_id, novel_id)
      );
      CREATE INDEX chapter_unlock_schedule_due ON chapter_unlock_schedule (next_unlock_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE chapter_unlock_schedule;`);
  }
}
