import { Injectable } from '@nestjs/common';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { EndingCount, ReadingTotals, StartedNovels } from '../domain/engagement-report.js';
import { EngagementRepository } from '../domain/engagement.repository.js';
import type { ReportingWindow } from '../domain/reporting-window.js';

/**
 * Analytics is a reporting context: it reads the reading module's tables (novel_progress,
 * endings) and its own activity rollups with read-only SQL rather than through the reading module's
 * service, which has no reason to offer partner-wide aggregates. It never writes to them.
 */
@Injectable()
export class PgEngagementRepository extends EngagementRepository {
  // The report tolerates seconds of lag: it may read on the standby (ADR 0122).
  constructor(private readonly db: ReportingDb) {
    super();
  }

  async readingTotals(tenant: Tenant, window: ReportingWindow): Promise<ReadingTotals> {
    // A key counts once, on its first day in the window: the row whose previous day with
    // activity falls before the window (migration 1763900400000).
    const [row] = await this.db.query<{ active_readers: number; chapters_read: number }>(
      `SELECT
         (SELECT count(*) FROM reading_reader_days
          WHERE partner_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date AND previous_day < $3::date)::int AS active_readers,
         (SELECT count(*) FROM reading_chapter_days
          WHERE partner_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date AND previous_day < $3::date)::int AS chapters_read`,
      [tenant.partnerId, tenant.environment, window.start, window.end],
    );
    return { activeReaders: row.active_readers, chaptersRead: row.chapters_read };
  }

  async startedNovels(tenant: Tenant, window: ReportingWindow): Promise<StartedNovels> {
    const [row] = await this.db.query<{ started: number; finished: number }>(
      `SELECT count(*)::int AS started, count(finished_at)::int AS finished
       FROM novel_progress
       WHERE partner_id = $1 AND environment = $2 AND started_at >= $3 AND started_at < $4`,
      [tenant.partnerId, tenant.environment, window.from, window.until],
    );
    return row;
  }

  endingCounts(tenant: Tenant, window: ReportingWindow, minimum: number): Promise<EndingCount[]> {
    // Counted first, then labelled: the join runs over one row per ending, not one per
    // finished novel (a third of the time on 50 000 finished novels, measured). An ending
    // since dropped from the catalog still counts, labelled by its choice id.
    return this.db.query<EndingCount>(
      `SELECT c.novel_id AS "novelId", c.choice_id AS "choiceId", coalesce(e.label, c.choice_id) AS label, c.count
       FROM (SELECT novel_id, chosen_choice_id AS choice_id, count(*)::int AS count
               FROM novel_progress
              WHERE partner_id = $1 AND environment = $2 AND finished_at >= $3 AND finished_at < $4
                AND chosen_choice_id IS NOT NULL
              GROUP BY novel_id, chosen_choice_id
             HAVING count(*) >= $5) AS c
       LEFT JOIN endings e ON e.environment = $2 AND e.novel_id = c.novel_id AND e.choice_id = c.choice_id
       ORDER BY c.novel_id, e.sort_order NULLS LAST, c.choice_id`,
      [tenant.partnerId, tenant.environment, window.from, window.until, minimum],
    );
  }
}
