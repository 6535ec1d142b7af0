import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Stored answers that carry a secret are sealed with the server secrets (ADR 0144): which ones are. */
export class IdempotencySealedAnswers1764200730000 implements MigrationInterface {
  name = 'IdempotencySealedAnswers1764200730000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys ADD COLUMN response_sealed boolean NOT NULL DEFAULT false`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys DROP COLUMN response_sealed`);
  }
}
