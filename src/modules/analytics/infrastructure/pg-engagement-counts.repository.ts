import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { EngagementCountsRepository } from '../domain/engagement-counts.repository.js';

/** Advisory lock class of the folding turn (beside the rollup trigger's 7 340 114 and 115). */
const FOLDING_LOCK_CLASS = 7_340_116;
const KEY = ['partner_id', 'environment', 'measure', 'day', 'since_day', 'novel_id', 'choice_id'];
const COLUMNS = KEY.join(', ');

/**
 * Deletes every row of the keys of the oldest pending deltas and inserts their sum as one
 * settled row. Writers only insert, so nothing waits on them; a delta committed after the
 * statement's snapshot is not deleted and stays pending for the next run.
 */
const FOLD = `
  WITH pending AS (SELECT id FROM engagement_day_counts WHERE NOT settled ORDER BY id LIMIT $1),
  keys AS (SELECT DISTINCT ${KEY.map((column) => `c.${column}`).join(', ')} FROM engagement_day_counts c JOIN pending USING (id)),
  folded AS (
    DELETE FROM engagement_day_counts c USING keys k
     WHERE ${KEY.map((column) => `c.${column} = k.${column}`).join(' AND ')}
    RETURNING ${KEY.map((column) => `c.${column}`).join(', ')}, c.count),
  settled AS (
    INSERT INTO engagement_day_counts (${COLUMNS}, count, settled)
    SELECT ${COLUMNS}, sum(count), true FROM folded GROUP BY ${COLUMNS} HAVING sum(count) <> 0)
  SELECT count(*)::int AS pending FROM pending`;

@Injectable()
export class PgEngagementCountsRepository extends EngagementCountsRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async takeFoldingTurn(): Promise<boolean> {
    const [row] = await this.db.query<{ held: boolean }>('SELECT pg_try_advisory_xact_lock($1, 0) AS held', [FOLDING_LOCK_CLASS]);
    return row.held;
  }

  async fold(batch: number): Promise<number> {
    const [row] = await this.db.query<{ pending: number }>(FOLD, [batch]);
    return row.pending;
  }
}
