import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Children's reading activity, loaded by `kids:import` (DECISIONS 15, 18). Keyed by
 * partner and environment like every partner-scoped row (DECISIONS 2, 20); the import
 * writes the live environment only. One row per (account, child, story, occurred_at):
 * importing a corrected file again updates the rows it repeats instead of adding them.
 * Only aggregates of it ever leave the service.
 */
export class KidsActivity1763900410000 implements MigrationInterface {
  name = 'KidsActivity1763900410000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE kids_activity (
        partner_id uuid NOT NULL REFERENCES partners (id),
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        account_id text NOT NULL,
        child_ref text NOT NULL,
        story_id text NOT NULL,
        occurred_at timestamptz NOT NULL,
        minutes numeric(6, 2) NOT NULL CHECK (minutes >= 0),
        completed_at timestamptz,
        imported_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (partner_id, environment, account_id, child_ref, story_id, occurred_at)
      );
      CREATE INDEX kids_activity_period ON kids_activity (partner_id, environment, occurred_at) INCLUDE (account_id, minutes);
      CREATE INDEX kids_activity_completions ON kids_activity (partner_id, environment, completed_at) WHERE completed_at IS NOT NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE kids_activity');
  }
}
