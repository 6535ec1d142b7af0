import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The real-time unlock job takes live rows before sandbox ones and a share per partner
 * inside each (ADR 0151): it finds the partners with rows by skipping through this index
 * one partner at a time, then reads each one's earliest due rows. It replaces the index on
 * the instant alone, which only served the old earliest-first claim.
 */
export class UnlockScheduleTenantDue1764200500000 implements MigrationInterface {
  name = 'UnlockScheduleTenantDue1764200500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX chapter_unlock_schedule_due;
      CREATE INDEX chapter_unlock_schedule_tenant_due ON chapter_unlock_schedule (environment, partner_id, next_unlock_at) WHERE test_clock_id IS NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX chapter_unlock_schedule_tenant_due;
      CREATE INDEX chapter_unlock_schedule_due ON chapter_unlock_schedule (next_unlock_at) WHERE test_clock_id IS NULL;
    `);
  }
}
