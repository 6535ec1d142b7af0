import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Monthly sums of the engagement day counts (migration 1764100300000), so that a report
 * reads its period's whole months as one row per month and key, and days only at the edges.
 *
 * `engagement_month_counts` has the day counts' key with the UTC month (its first day) for
 * the day, the same `since_day` (so "first day in the window" stays exact for any start),
 * and signed deltas folded like the day counts. A statement trigger on the day counts adds
 * every unsettled delta they receive to its month, in the same statement: a month's rows
 * always sum to its days' rows. Settled rows are inserted by folding only (which preserves
 * the sums) and count nothing. The trigger exists before the backfill reads the day counts
 * and blocks their writers until this migration commits: no delta is missed or counted twice.
 */
export class EngagementMonthCounts1764200810000 implements MigrationInterface {
  name = 'EngagementMonthCounts1764200810000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE engagement_month_counts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        measure text NOT NULL CHECK (measure IN ('readers', 'chapters', 'started', 'finished', 'endings')),
        month date NOT NULL CHECK (extract(day FROM month) = 1),
        since_day date NOT NULL DEFAULT '-infinity',
        novel_id text NOT NULL DEFAULT '',
        choice_id text NOT NULL DEFAULT '',
        count bigint NOT NULL,
        settled boolean NOT NULL DEFAULT false
      );
      CREATE INDEX engagement_month_counts_period ON engagement_month_counts (partner_id, environment, measure, month) INCLUDE (since_day, novel_id, choice_id, count);
      CREATE INDEX engagement_month_counts_unsettled ON engagement_month_counts (id) WHERE NOT settled;

      CREATE FUNCTION engagement_count_months() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO engagement_month_counts (partner_id, environment, measure, month, since_day, novel_id, choice_id, count)
        SELECT partner_id, environment, measure, date_trunc('month', day::timestamp)::date, since_day, novel_id, choice_id, sum(count)
          FROM new_rows WHERE NOT settled
         GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(count) <> 0;
        RETURN NULL;
      END $$;
      CREATE TRIGGER engagement_month_counts AFTER INSERT ON engagement_day_counts
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_months();
    `);
    await db.query(`
      INSERT INTO engagement_month_counts (partner_id, environment, measure, month, since_day, novel_id, choice_id, count, settled)
      SELECT partner_id, environment, measure, date_trunc('month', day::timestamp)::date, since_day, novel_id, choice_id, sum(count), true
        FROM engagement_day_counts
       GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(count) <> 0;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER engagement_month_counts ON engagement_day_counts;
      DROP FUNCTION engagement_count_months();
      DROP TABLE engagement_month_counts;
    `);
  }
}
