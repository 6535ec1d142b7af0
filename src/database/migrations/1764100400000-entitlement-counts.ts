import type { MigrationInterface, QueryRunner } from 'typeorm';
import { countFunction, countTriggers, signedRows, type Change } from './helpers/signed-counts.v1.js';

/**
 * Signed counts behind billing usage (ADR 0129), so that it reads a number of rows
 * that grows with the days and the changes of its month, not with the partner's subscribers
 * and their whole history. Per partner, environment and product:
 *
 * - `active`: entitlements whose status is active (the current count);
 * - `records`: entitlements;
 * - `created`: applied history rows that created an entitlement (old status none);
 * - `moves`: by the UTC day of `effective_at`, the sum of the applied changes' moves (+1 to
 *   active, −1 from active): the count at a day's start is the sum of the earlier days.
 */
export class EntitlementCounts1764100400000 implements MigrationInterface {
  name = 'EntitlementCounts1764100400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE entitlement_counts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        product text NOT NULL,
        measure text NOT NULL CHECK (measure IN ('active', 'records', 'created', 'moves')),
        day date NOT NULL DEFAULT '-infinity',
        count bigint NOT NULL,
        settled boolean NOT NULL DEFAULT false
      );
      CREATE INDEX entitlement_counts_product ON entitlement_counts (partner_id, environment, product, measure, day) INCLUDE (count);
      CREATE INDEX entitlement_counts_unsettled ON entitlement_counts (id) WHERE NOT settled;

      ${countFunction('entitlement_count_records', (change) => deltas(change, RECORD_COLUMNS, RECORD_MEASURES))}

      ${countFunction('entitlement_count_history', (change) => deltas(change, HISTORY_COLUMNS, HISTORY_MEASURES))}

      ${countTriggers('entitlements', 'entitlement_count_records', null, RECORD_CHANGED)}
      ${countTriggers('entitlement_history', 'entitlement_count_history', null, HISTORY_CHANGED)}
    `);
    // What was written before: settled at once.
    await db.query(`
      INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count, settled)
      SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(m.value), true
        FROM entitlements r, LATERAL (${RECORD_MEASURES}) AS m GROUP BY 1, 2, 3, 4, 5 HAVING sum(m.value) <> 0;
      INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count, settled)
      SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(m.value), true
        FROM entitlement_history r, LATERAL (${HISTORY_MEASURES}) AS m GROUP BY 1, 2, 3, 4, 5 HAVING sum(m.value) <> 0;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER signed_count_insert ON entitlements;
      DROP TRIGGER signed_count_update ON entitlements;
      DROP TRIGGER signed_count_delete ON entitlements;
      DROP TRIGGER signed_count_insert ON entitlement_history;
      DROP TRIGGER signed_count_update ON entitlement_history;
      DROP TRIGGER signed_count_delete ON entitlement_history;
      DROP FUNCTION entitlement_count_records();
      DROP FUNCTION entitlement_count_history();
      DROP TABLE entitlement_counts;
    `);
  }
}

const RECORD_COLUMNS = ['partner_id', 'environment', 'product', 'status'];
const RECORD_CHANGED = 'OLD.status IS DISTINCT FROM NEW.status';
/** The counted measures of one entitlements row `r`. */
const RECORD_MEASURES = `
  SELECT 'records' AS measure, '-infinity'::date AS day, 1 AS value
  UNION ALL SELECT 'active', '-infinity', 1 WHERE r.status = 'active'`;

const HISTORY_COLUMNS = ['partner_id', 'environment', 'product', 'old_status', 'new_status', 'stale', 'effective_at'];
const HISTORY_CHANGED = `OLD.stale IS DISTINCT FROM NEW.stale OR OLD.effective_at IS DISTINCT FROM NEW.effective_at
  OR OLD.old_status IS DISTINCT FROM NEW.old_status OR OLD.new_status IS DISTINCT FROM NEW.new_status`;
/** The counted measures of one entitlement_history row `r`: stale rows changed nothing. */
const HISTORY_MEASURES = `
  SELECT 'created' AS measure, '-infinity'::date AS day, 1 AS value WHERE r.old_status IS NULL AND NOT r.stale
  UNION ALL SELECT 'moves', (r.effective_at AT TIME ZONE 'UTC')::date,
                   (r.new_status = 'active')::int - (r.old_status IS NOT DISTINCT FROM 'active')::int
   WHERE NOT r.stale`;

function deltas(change: Change, columns: string[], measures: string): string {
  return `INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (${signedRows(columns, change)}) AS r, LATERAL (${measures}) AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;`;
}
