import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sandbox test clocks (DECISIONS 28, ADR 0128). A clock belongs to a partner's sandbox;
 * a subscriber is attached to at most one. The unlock schedule records the clock of each
 * row: the live job works only on rows without one, and an advance only on its clock's.
 */
export class TestClocks1764100200000 implements MigrationInterface {
  name = 'TestClocks1764100200000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE test_clocks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        partner_id uuid NOT NULL REFERENCES partners (id),
        name text,
        frozen_time timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX test_clocks_partner ON test_clocks (partner_id, created_at);

      CREATE TABLE test_clock_subscribers (
        partner_id uuid NOT NULL,
        subscriber_id text NOT NULL,
        clock_id uuid NOT NULL REFERENCES test_clocks (id) ON DELETE CASCADE,
        attached_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (partner_id, subscriber_id)
      );
      CREATE INDEX test_clock_subscribers_clock ON test_clock_subscribers (clock_id, attached_at);

      ALTER TABLE chapter_unlock_schedule ADD COLUMN test_clock_id uuid REFERENCES test_clocks (id) ON DELETE CASCADE;
      DROP INDEX chapter_unlock_schedule_due;
      CREATE INDEX chapter_unlock_schedule_due ON chapter_unlock_schedule (next_unlock_at) WHERE test_clock_id IS NULL;
      CREATE INDEX chapter_unlock_schedule_clock_due ON chapter_unlock_schedule (test_clock_id, next_unlock_at) WHERE test_clock_id IS NOT NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX chapter_unlock_schedule_clock_due;
      DROP INDEX chapter_unlock_schedule_due;
      DELETE FROM chapter_unlock_schedule WHERE test_clock_id IS NOT NULL;
      ALTER TABLE chapter_unlock_schedule DROP COLUMN test_clock_id;
      CREATE INDEX chapter_unlock_schedule_due ON chapter_unlock_schedule (next_unlock_at);
      DROP TABLE test_clock_subscribers;
      DROP TABLE test_clocks;
    `);
  }
}
