import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Children's figures fixed month by month (DECISIONS 15, ADR 0135): written the first time
 * an answer covers a month, replaced only by `kids:import --restate` (ADR 0136).
 */
export class KidsFixedMonths1764200000000 implements MigrationInterface {
  name = 'KidsFixedMonths1764200000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE kids_fixed_months (
        partner_id uuid NOT NULL REFERENCES partners (id),
        environment text NOT NULL CONSTRAINT kids_fixed_months_environment_check CHECK (environment IN ('live', 'sandbox')),
        month date NOT NULL CONSTRAINT kids_fixed_months_month_check CHECK (EXTRACT(day FROM month) = 1),
        active_accounts_over_months integer[] NOT NULL CONSTRAINT kids_fixed_months_spans_check CHECK (cardinality(active_accounts_over_months) = 12),
        accounts_with_activity integer NOT NULL,
        stories_completed integer NOT NULL,
        minutes_read numeric NOT NULL,
        fixed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (partner_id, environment, month)
      );
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE kids_fixed_months`);
  }
}
