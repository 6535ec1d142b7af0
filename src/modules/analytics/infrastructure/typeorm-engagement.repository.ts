import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/typeorm-unit-of-work.js';
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
export class TypeOrmEngagementRepository extends EngagementRepository {
  constructor(private readonly db: Db) {
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

  endingCounts(tenant: Tenant, window: ReportingWindow): Promise<EndingCount[]> {
    // An ending since dropped from the catalog still counts, labelled by its choice id.
    return this.db.query<EndingCount>(
      `SELECT p.novel_id, p.chosen_choice_id AS choice_id, coalesce(e.label, p.chosen_choice_id) AS label, count(*)::int AS count
       FROM novel_progress p
       LEFT JOIN endings e ON e.environment = p.environment AND e.novel_id = p.novel_id AND e.choice_id = p.chosen_choice_id
       WHERE p.partner_id = $1 AND p.environment = $2 AND p.finished_at >= $3 AND p.finished_at < $4
         AND p.chosen_choice_id IS NOT NULL
       GROUP BY p.novel_id, p.chosen_choice_id, e.label, e.sort_order
       ORDER BY p.novel_id, e.sort_order NULLS LAST, p.chosen_choice_id`,
      [tenant.partnerId, tenant.environment, window.from, window.until],
    );
  }
}
