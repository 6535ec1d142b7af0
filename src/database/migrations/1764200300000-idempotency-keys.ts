import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotency-Key (DECISIONS 30, ADR 0144): a key's first request and its stored answer. */
export class IdempotencyKeys1764200300000 implements MigrationInterface {
  name = 'IdempotencyKeys1764200300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE idempotency_keys (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        key text NOT NULL,
        fingerprint bytea NOT NULL,
        claim_token uuid NOT NULL,
        locked_until timestamptz NOT NULL,
        response_status smallint,
        response_headers jsonb,
        response_body text,
        expires_at timestamptz NOT NULL,
        CONSTRAINT idempotency_keys_environment_check CHECK (environment IN ('live', 'sandbox')),
        PRIMARY KEY (partner_id, environment, key)
      );
      CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE idempotency_keys`);
  }
}
