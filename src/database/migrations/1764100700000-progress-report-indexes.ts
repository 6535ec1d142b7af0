import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The engagement report sums per-day counts since migration 1764100300000 (ADR 0129); no
 * statement reads `novel_progress` by start or finish time any more. Its two time indexes
 * only cost every novel opened and finished a write each.
 */
export class ProgressReportIndexes1764100700000 implements MigrationInterface {
  name = 'ProgressReportIndexes1764100700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX novel_progress_started;
      DROP INDEX novel_progress_finished;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE INDEX novel_progress_started ON novel_progress (partner_id, environment, started_at);
      CREATE INDEX novel_progress_finished ON novel_progress (partner_id, environment, finished_at) WHERE finished_at IS NOT NULL;
    `);
  }
}
