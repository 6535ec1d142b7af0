import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { RollupRetentionRepository } from '../domain/rollup-retention.repository.js';

/**
 * A stand-in starts with `~`, which no subscriber id may hold (`SUBSCRIBER_ID_PATTERN`), and
 * is random per row: nothing links two rows of one reader, or a row to the reader. The
 * signed-count triggers fire on a change of `previous_day` only, so the counts the report
 * reads are untouched.
 */
const ROLLUPS = ['reading_reader_days', 'reading_chapter_days'];

@Injectable()
export class PgRollupRetentionRepository extends RollupRetentionRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async anonymiseBefore(day: string, limit: number): Promise<number> {
    let changed = 0;
    for (const table of ROLLUPS) {
      // Rows another replica is changing are left to it: replicas never wait on each other.
      const rows = await this.db.query<{ n: string }>(
        `WITH due AS (SELECT ctid FROM ${table} WHERE day < $1::date AND subscriber_id NOT LIKE '~%' LIMIT $2 FOR UPDATE SKIP LOCKED),
              changed AS (UPDATE ${table} AS r SET subscriber_id = '~' || gen_random_uuid() FROM due WHERE r.ctid = due.ctid RETURNING 1)
         SELECT count(*) AS n FROM changed`,
        [day, limit],
      );
      changed += Number(rows[0].n);
    }
    return changed;
  }
}
