import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fingerprint of the root secret the database was set up with (ADR 0003): a service
 * started with another SERVER_SECRET refuses to start instead of answering 401 and 500.
 * Each credential also records which root secret's pepper hashed it, so a rotation can
 * count those still to upgrade. Both are filled at the first start that reads them.
 */
export class ServerSecretFingerprint1764100100000 implements MigrationInterface {
  name = 'ServerSecretFingerprint1764100100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE server_secret (
        id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        fingerprint text NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      );
      ALTER TABLE credentials ADD COLUMN secret_fingerprint text;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE credentials DROP COLUMN secret_fingerprint;
      DROP TABLE server_secret;
    `);
  }
}
