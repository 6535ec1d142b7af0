import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Inventory and audit for operators (ADR 0155): when each credential last obtained a token
 * (written at most once a minute per credential), and the append-only record of what the
 * operations CLI changed. A trigger refuses UPDATE, DELETE and TRUNCATE on the record, so
 * rewriting history takes a superuser disabling it, which PostgreSQL's own log shows.
 */
export class OperatorAudit1764200600000 implements MigrationInterface {
  name = 'OperatorAudit1764200600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE credentials ADD COLUMN last_used_at timestamptz;
      CREATE TABLE operator_actions (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        command text NOT NULL,
        os_user text NOT NULL,
        operator text,
        subject text,
        details jsonb NOT NULL DEFAULT '{}'
      );
      CREATE INDEX operator_actions_at ON operator_actions (at);
      CREATE FUNCTION operator_actions_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'operator_actions is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$;
      CREATE TRIGGER operator_actions_no_change BEFORE UPDATE OR DELETE ON operator_actions
        FOR EACH ROW EXECUTE FUNCTION operator_actions_append_only();
      CREATE TRIGGER operator_actions_no_truncate BEFORE TRUNCATE ON operator_actions
        FOR EACH STATEMENT EXECUTE FUNCTION operator_actions_append_only();
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE operator_actions;
      DROP FUNCTION operator_actions_append_only();
      ALTER TABLE credentials DROP COLUMN last_used_at;
    `);
  }
}
