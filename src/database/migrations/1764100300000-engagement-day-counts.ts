import type { MigrationInterface, QueryRunner } from 'typeorm';
import { countFunction, countTriggers, signedRows, WINDOW_CLAMP_DAYS, type Change } from './helpers/signed-counts.v1.js';

/**
 * Counts per UTC day behind the engagement report (ADR 0129), so that a report
 * reads a number of rows that grows with the days of its period, not with the readers.
 *
 * `engagement_day_counts` holds signed deltas; the figure of a key is the sum of its rows.
 * Triggers on the tables the report used to scan append a delta in the writer's own
 * statement (insert only: writers never wait on one another's counter row); the analytics
 * compaction job folds each key's deltas into one settled row.
 *
 * - `readers`, `chapters`: a row of `reading_reader_days` / `reading_chapter_days`, by its
 *   `day` and `since_day` = its `previous_day`, clamped to `day - 366`. A key is active in
 *   [start, end] when it has a row there whose previous day is before `start` (migration
 *   1763900400000); a period covers at most 366 days, so every previous day older than
 *   `day - 366` is before the start of any period holding `day`, as the clamped one is.
 *   The clamp bounds the keys of one day by 367, whatever the readers' histories.
 * - `started`, `finished`: a `novel_progress` row by the UTC day of `started_at`; the
 *   second when it has `finished_at`.
 * - `endings`: a finished `novel_progress` row with a chosen ending, by the UTC day of
 *   `finished_at`, the novel and the choice.
 */
export class EngagementDayCounts1764100300000 implements MigrationInterface {
  name = 'EngagementDayCounts1764100300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE engagement_day_counts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        measure text NOT NULL CHECK (measure IN ('readers', 'chapters', 'started', 'finished', 'endings')),
        day date NOT NULL,
        since_day date NOT NULL DEFAULT '-infinity',
        novel_id text NOT NULL DEFAULT '',
        choice_id text NOT NULL DEFAULT '',
        count bigint NOT NULL,
        settled boolean NOT NULL DEFAULT false
      );
      CREATE INDEX engagement_day_counts_period ON engagement_day_counts (partner_id, environment, measure, day) INCLUDE (since_day, novel_id, choice_id, count);
      CREATE INDEX engagement_day_counts_unsettled ON engagement_day_counts (id) WHERE NOT settled;

      ${countFunction('engagement_count_activity_days', activityDayDeltas)}

      ${countFunction('engagement_count_progress', progressDeltas)}

      ${countTriggers('reading_reader_days', 'engagement_count_activity_days', 'readers', ACTIVITY_DAY_CHANGED)}
      ${countTriggers('reading_chapter_days', 'engagement_count_activity_days', 'chapters', ACTIVITY_DAY_CHANGED)}
      ${countTriggers('novel_progress', 'engagement_count_progress', null, PROGRESS_CHANGED)}
    `);
    // What was written before: settled at once.
    await db.query(`
      INSERT INTO engagement_day_counts (partner_id, environment, measure, day, since_day, count, settled)
      SELECT partner_id, environment, 'readers', day, greatest(previous_day, day - ${WINDOW_CLAMP_DAYS}), count(*), true
        FROM reading_reader_days GROUP BY 1, 2, 4, 5;
      INSERT INTO engagement_day_counts (partner_id, environment, measure, day, since_day, count, settled)
      SELECT partner_id, environment, 'chapters', day, greatest(previous_day, day - ${WINDOW_CLAMP_DAYS}), count(*), true
        FROM reading_chapter_days GROUP BY 1, 2, 4, 5;
      INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count, settled)
      SELECT partner_id, environment, m.measure, m.day, m.novel_id, m.choice_id, count(*), true
        FROM novel_progress r, LATERAL (${PROGRESS_MEASURES}) AS m
       GROUP BY 1, 2, 3, 4, 5, 6;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER signed_count_insert ON reading_reader_days;
      DROP TRIGGER signed_count_update ON reading_reader_days;
      DROP TRIGGER signed_count_delete ON reading_reader_days;
      DROP TRIGGER signed_count_insert ON reading_chapter_days;
      DROP TRIGGER signed_count_update ON reading_chapter_days;
      DROP TRIGGER signed_count_delete ON reading_chapter_days;
      DROP TRIGGER signed_count_insert ON novel_progress;
      DROP TRIGGER signed_count_update ON novel_progress;
      DROP TRIGGER signed_count_delete ON novel_progress;
      DROP FUNCTION engagement_count_activity_days();
      DROP FUNCTION engagement_count_progress();
      DROP TABLE engagement_day_counts;
    `);
  }
}

const ACTIVITY_DAY_CHANGED = 'OLD.previous_day <> NEW.previous_day';
const PROGRESS_CHANGED = `OLD.started_at IS DISTINCT FROM NEW.started_at OR OLD.finished_at IS DISTINCT FROM NEW.finished_at
  OR OLD.chosen_choice_id IS DISTINCT FROM NEW.chosen_choice_id`;

/** One delta per (partner, environment, day, clamped previous day) of the changed rollup rows; the measure is the trigger's argument. */
function activityDayDeltas(change: Change): string {
  return `INSERT INTO engagement_day_counts (partner_id, environment, measure, day, since_day, count)
          SELECT partner_id, environment, TG_ARGV[0], day, greatest(previous_day, day - ${WINDOW_CLAMP_DAYS}), sum(sign)
            FROM (${signedRows(['partner_id', 'environment', 'day', 'previous_day'], change)}) AS r
           GROUP BY 1, 2, 4, 5 HAVING sum(sign) <> 0;`;
}

/** The counted measures of one novel_progress row `r`. */
const PROGRESS_MEASURES = `
  SELECT 'started' AS measure, (r.started_at AT TIME ZONE 'UTC')::date AS day, '' AS novel_id, '' AS choice_id
  UNION ALL SELECT 'finished', (r.started_at AT TIME ZONE 'UTC')::date, '', '' WHERE r.finished_at IS NOT NULL
  UNION ALL SELECT 'endings', (r.finished_at AT TIME ZONE 'UTC')::date, r.novel_id, r.chosen_choice_id
   WHERE r.finished_at IS NOT NULL AND r.chosen_choice_id IS NOT NULL`;

function progressDeltas(change: Change): string {
  const columns = ['partner_id', 'environment', 'novel_id', 'started_at', 'finished_at', 'chosen_choice_id'];
  return `INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, m.novel_id, m.choice_id, sum(r.sign)
            FROM (${signedRows(columns, change)}) AS r, LATERAL (${PROGRESS_MEASURES}) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;`;
}
