import { Injectable } from '@nestjs/common';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { EndingCount, ReadingTotals, StartedNovels } from '../domain/engagement-report.js';
import { EngagementRepository } from '../domain/engagement.repository.js';
import type { ReportingWindow } from '../domain/reporting-window.js';

/**
 * Analytics is a reporting context: it reads its own counts per day (kept by triggers on
 * the activity rollups and on the reading module's novel_progress, ADR 0129) and the
 * catalog's ending labels with read-only SQL. It never writes to the reading tables.
 */
@Injectable()
export class PgEngagementRepository extends EngagementRepository {
  // The report tolerates seconds of lag: it may read on the standby (ADR 0122).
  constructor(private readonly db: ReportingDb) {
    super();
  }

  async readingTotals(tenant: Tenant, window: ReportingWindow): Promise<ReadingTotals> {
    // A key counts once, on its first day in the window: the rows whose previous day with
    // activity falls before the window (migrations 1763900400000, 1764100300000).
    const [row] = await this.db.query<{ active_readers: number; chapters_read: number }>(
      `SELECT coalesce(sum(count) FILTER (WHERE measure = 'readers'), 0)::int AS active_readers,
              coalesce(sum(count) FILTER (WHERE measure = 'chapters'), 0)::int AS chapters_read
         FROM engagement_day_counts
        WHERE partner_id = $1 AND environment = $2 AND measure IN ('readers', 'chapters')
          AND day BETWEEN $3::date AND $4::date AND since_day < $3::date`,
      [tenant.partnerId, tenant.environment, window.start, window.end],
    );
    return { activeReaders: row.active_readers, chaptersRead: row.chapters_read };
  }

  async startedNovels(tenant: Tenant, window: ReportingWindow): Promise<StartedNovels> {
    const [row] = await this.db.query<{ started: number; finished: number }>(
      `SELECT coalesce(sum(count) FILTER (WHERE measure = 'started'), 0)::int AS started,
              coalesce(sum(count) FILTER (WHERE measure = 'finished'), 0)::int AS finished
         FROM engagement_day_counts
        WHERE partner_id = $1 AND environment = $2 AND measure IN ('started', 'finished') AND day BETWEEN $3::date AND $4::date`,
      [tenant.partnerId, tenant.environment, window.start, window.end],
    );
    return row;
  }

  endingCounts(tenant: Tenant, window: ReportingWindow, minimum: number): Promise<EndingCount[]> {
    // Counted first, then labelled: the join runs over one row per ending. An ending since
    // dropped from the catalog still counts, labelled by its choice id.
    return this.db.query<EndingCount>(
      `SELECT c.novel_id AS "novelId", c.choice_id AS "choiceId", coalesce(e.label, c.choice_id) AS label, c.count
       FROM (SELECT novel_id, choice_id, sum(count)::int AS count
               FROM engagement_day_counts
              WHERE partner_id = $1 AND environment = $2 AND measure = 'endings' AND day BETWEEN $3::date AND $4::date
              GROUP BY novel_id, choice_id
             HAVING sum(count) >= $5) AS c
       LEFT JOIN endings e ON e.environment = $2 AND e.novel_id = c.novel_id AND e.choice_id = c.choice_id
       ORDER BY c.novel_id, e.sort_order NULLS LAST, c.choice_id`,
      [tenant.partnerId, tenant.environment, window.start, window.end, minimum],
    );
  }
}
