import type { FactoryProvider } from '@nestjs/common';
import { SignedCountFolding } from '../../../shared/persistence/signed-counts.js';

// The per-day summaries behind billing usage's peak and mean (migration 1764100500000,
// ADR 0129): writers mark a day pending, the signed-count job settles it, readers extend a
// still valid summary by the changes after it.

const SUMMARY_COLUMNS = ['net', 'peak', 'midnight', 'through'] as const;

/**
 * Over the rows of one day (`settled` summary and pending marks), its summary's columns when
 * it still holds for the changes before `until`, else NULLs: a mark at or before the
 * summary's last instant (a change arrived late, was erased or rewritten) voids it, and so
 * does a summary reaching past `until` (which counts only the changes before it).
 */
export function daySummaryBase(until: string): string {
  const summarised = (column: string) => `max(${column}) FILTER (WHERE settled)`;
  const holds = `${summarised('through')} < ${until} AND coalesce(min(changed_from) > ${summarised('through')}, true)`;
  return SUMMARY_COLUMNS.map((column) => `CASE WHEN ${holds} THEN ${summarised(column)} END AS ${column}`).join(', ');
}

/**
 * Settles the days of the oldest pending marks in one statement: deletes every row of those
 * days and inserts each day's summary, extended from the old one when it still holds, else
 * recomputed. A mark committed meanwhile is outside the snapshot and stays pending.
 */
const SETTLE_DAYS = `
  WITH pending AS (SELECT id FROM entitlement_day_peaks WHERE NOT settled ORDER BY id LIMIT $1),
  days AS (SELECT DISTINCT p.partner_id, p.environment, p.product, p.day FROM entitlement_day_peaks p JOIN pending USING (id)),
  cleared AS (
    DELETE FROM entitlement_day_peaks p USING days d
     WHERE p.partner_id = d.partner_id AND p.environment = d.environment AND p.product = d.product AND p.day = d.day
    RETURNING p.partner_id, p.environment, p.product, p.day, p.settled, p.changed_from, ${SUMMARY_COLUMNS.map((column) => `p.${column}`).join(', ')}),
  bases AS (SELECT partner_id, environment, product, day, ${daySummaryBase(`'infinity'::timestamptz`)} FROM cleared GROUP BY 1, 2, 3, 4),
  settled AS (
    INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, settled, ${SUMMARY_COLUMNS.join(', ')})
    SELECT b.partner_id, b.environment, b.product, b.day, true, s.net, s.peak, s.midnight, s.through
      FROM bases b,
           LATERAL entitlement_day_summary(b.partner_id, b.environment, b.product, b.day, b.net, b.peak, b.midnight, b.through, 'infinity') AS s
     WHERE s.through IS NOT NULL)
  SELECT count(*)::int AS pending FROM pending`;

/** Registers the settling of the day summaries with the signed-count job. */
export const ENTITLEMENT_DAY_PEAKS: FactoryProvider = {
  provide: 'settled:entitlement_day_peaks',
  inject: [SignedCountFolding],
  useFactory: (folding: SignedCountFolding) => folding.registerSettling('entitlement_day_peaks', SETTLE_DAYS),
};
