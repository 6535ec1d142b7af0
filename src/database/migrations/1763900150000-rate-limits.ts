import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Token buckets shared by every replica (DECISIONS 19). */
export class RateLimits1763900150000 implements MigrationInterface {
  name = 'RateLimits1763900150000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE UNLOGGED TABLE rate_limit_buckets (
        key text PRIMARY KEY,
        tokens double precision NOT NULL,
        refreshed_at timestamptz NOT NULL,
        -- What the last take obtained: RETURNING cannot see the pre-update row.
        last_granted integer NOT NULL
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE rate_limit_buckets`);
  }
}
