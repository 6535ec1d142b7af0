import type { MigrationInterface, QueryRunner } from 'typeorm';
import { countFunction, countTriggers, signedRows, type Change } from './helpers/signed-counts.v1.js';

/**
 * Per-day summaries behind billing usage's peak and daily mean (ADR 0129), so that
 * a month reads about one row per day and the changes since the last summary, not every
 * change of the month.
 *
 * The count of active entitlements of a (partner, environment, product) moves by each applied
 * change (+1 to active, −1 from active). A UTC day's summary, over its changes grouped by
 * instant in `effective_at` order: `net` (their sum), `peak` (the highest running sum after
 * an instant; NULL without changes), `midnight` (the sum at exactly 00:00 UTC, counted in
 * that day's 00:00 figure) and `through` (the last instant summarised). Summaries of
 * consecutive stretches combine: (n₁, p₁) then (n₂, p₂) is (n₁ + n₂, max(p₁, n₁ + p₂)), so a
 * summary is extended by the changes after `through` without reading those before.
 *
 * Writers only insert marks (`settled` false; `changed_from` the earliest `effective_at` the
 * statement touched in that day), never update a shared row. The signed-count job settles
 * a day's marks: it extends the summary when every mark is after `through`, and recomputes
 * the day otherwise (a change arrived late or was erased), in one statement whose snapshot
 * also decides which marks it deletes: a mark committed meanwhile stays for the next run.
 * A reader uses a summary only when no mark of its day is at or before `through`.
 */
export class EntitlementDayPeaks1764100500000 implements MigrationInterface {
  name = 'EntitlementDayPeaks1764100500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE entitlement_day_peaks (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        product text NOT NULL,
        day date NOT NULL,
        settled boolean NOT NULL DEFAULT false,
        changed_from timestamptz,
        net bigint,
        peak bigint,
        midnight bigint,
        through timestamptz,
        CONSTRAINT entitlement_day_peaks_shape CHECK (settled = (changed_from IS NULL) AND settled = (through IS NOT NULL))
      );
      CREATE INDEX entitlement_day_peaks_day ON entitlement_day_peaks (partner_id, environment, product, day)
        INCLUDE (settled, changed_from, net, peak, midnight, through);
      CREATE INDEX entitlement_day_peaks_unsettled ON entitlement_day_peaks (id) WHERE NOT settled;

      -- A day's summary: the base given (all NULL: none) extended by the day's changes after
      -- its through instant and before until.
      CREATE FUNCTION entitlement_day_summary(p_partner uuid, p_environment text, p_product text, p_day date,
                                              b_net bigint, b_peak bigint, b_midnight bigint, b_through timestamptz, p_until timestamptz)
      RETURNS TABLE (net bigint, peak bigint, midnight bigint, through timestamptz) LANGUAGE sql STABLE AS $$
        SELECT coalesce(b_net, 0) + coalesce(sum(move), 0),
               greatest(b_peak, coalesce(b_net, 0) + max(running)),
               coalesce(b_midnight, 0) + coalesce(sum(move) FILTER (WHERE effective_at = p_day::timestamp AT TIME ZONE 'UTC'), 0),
               coalesce(max(effective_at), b_through)
          FROM (SELECT effective_at, move, sum(move) OVER (ORDER BY effective_at) AS running
                  FROM (SELECT effective_at, sum(${MOVE}) AS move
                          FROM entitlement_history
                         WHERE partner_id = p_partner AND environment = p_environment AND product = p_product AND NOT stale
                           AND effective_at >= p_day::timestamp AT TIME ZONE 'UTC' AND effective_at > coalesce(b_through, '-infinity')
                           AND effective_at < least((p_day + 1)::timestamp AT TIME ZONE 'UTC', p_until)
                         GROUP BY effective_at) AS instants) AS counted
      $$;

      ${countFunction('entitlement_day_peak_marks', marks)}
      ${countTriggers('entitlement_history', 'entitlement_day_peak_marks', null, HISTORY_CHANGED, 'day_peak_mark')}
    `);
    // What was written before: summarised at once.
    await db.query(`
      INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, settled, net, peak, midnight, through)
      SELECT k.partner_id, k.environment, k.product, k.day, true, s.net, s.peak, s.midnight, s.through
        FROM (SELECT DISTINCT partner_id, environment, product, (effective_at AT TIME ZONE 'UTC')::date AS day
                FROM entitlement_history WHERE NOT stale) AS k,
             LATERAL entitlement_day_summary(k.partner_id, k.environment, k.product, k.day, NULL, NULL, NULL, NULL, 'infinity') AS s;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER day_peak_mark_insert ON entitlement_history;
      DROP TRIGGER day_peak_mark_update ON entitlement_history;
      DROP TRIGGER day_peak_mark_delete ON entitlement_history;
      DROP FUNCTION entitlement_day_peak_marks();
      DROP FUNCTION entitlement_day_summary(uuid, text, text, date, bigint, bigint, bigint, timestamptz, timestamptz);
      DROP TABLE entitlement_day_peaks;
    `);
  }
}

const MOVE = `(new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int`;
const HISTORY_COLUMNS = ['partner_id', 'environment', 'product', 'old_status', 'new_status', 'stale', 'effective_at'];
const HISTORY_CHANGED = `OLD.stale IS DISTINCT FROM NEW.stale OR OLD.effective_at IS DISTINCT FROM NEW.effective_at
  OR OLD.old_status IS DISTINCT FROM NEW.old_status OR OLD.new_status IS DISTINCT FROM NEW.new_status`;

/** One mark per day a statement's applied, moving changes touched (a change of no move changes no summary). */
function marks(change: Change): string {
  return `INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, changed_from)
          SELECT partner_id, environment, product, (effective_at AT TIME ZONE 'UTC')::date, min(effective_at)
            FROM (${signedRows(HISTORY_COLUMNS, change)}) AS r
           WHERE NOT stale AND ${MOVE} <> 0
           GROUP BY 1, 2, 3, 4;`;
}
