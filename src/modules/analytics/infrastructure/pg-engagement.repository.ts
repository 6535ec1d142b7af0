import { Injectable } from '@nestjs/common';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { countSpans } from '../domain/count-spans.js';
import type { EndingCount, ReadingTotals, StartedNovels } from '../domain/engagement-report.js';
import { EngagementRepository } from '../domain/engagement.repository.js';
import type { ReportingWindow } from '../domain/reporting-window.js';

/**
 * The count rows of `measures` (constants, never input) over a window: the monthly sums of
 * its months read whole ($3..$4, none when null) and the day counts of the spans
 * ($5 first, $6 last, $7 sign) of countSpans. Together they sum exactly the window's days.
 */
const countRows = (measures: string) => `
  SELECT measure, since_day, novel_id, choice_id, count FROM engagement_month_counts
   WHERE partner_id = $1 AND environment = $2 AND measure IN (${measures}) AND month BETWEEN $3::date AND $4::date
  UNION ALL
  SELECT d.measure, d.since_day, d.novel_id, d.choice_id, d.count * s.sign
    FROM unnest($5::date[], $6::date[], $7::int[]) AS s (first, last, sign)
    JOIN engagement_day_counts d ON d.partner_id = $1 AND d.environment = $2 AND d.measure IN (${measures}) AND d.day BETWEEN s.first AND s.last`;

/**
 * Analytics is a reporting context: it reads its own counts per day and month (kept by
 * triggers on the activity rollups and on the reading module's novel_progress, ADR 0129)
 * and the catalog's ending labels with read-only SQL. It never writes to the reading tables.
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
         FROM (${countRows(`'readers', 'chapters'`)}) AS c
        WHERE since_day < $8::date`,
      [...this.spans(tenant, window), window.start],
    );
    return { activeReaders: row.active_readers, chaptersRead: row.chapters_read };
  }

  async startedNovels(tenant: Tenant, window: ReportingWindow): Promise<StartedNovels> {
    const [row] = await this.db.query<{ started: number; finished: number }>(
      `SELECT coalesce(sum(count) FILTER (WHERE measure = 'started'), 0)::int AS started,
              coalesce(sum(count) FILTER (WHERE measure = 'finished'), 0)::int AS finished
         FROM (${countRows(`'started', 'finished'`)}) AS c`,
      this.spans(tenant, window),
    );
    return row;
  }

  endingCounts(tenant: Tenant, window: ReportingWindow, minimum: number): Promise<EndingCount[]> {
    // Counted first, then labelled: the join runs over one row per ending. An ending since
    // dropped from the catalog still counts, labelled by its choice id.
    return this.db.query<EndingCount>(
      `SELECT c.novel_id AS "novelId", c.choice_id AS "choiceId", coalesce(e.label, c.choice_id) AS label, c.count
       FROM (SELECT novel_id, choice_id, sum(count)::int AS count
               FROM (${countRows(`'endings'`)}) AS c
              GROUP BY novel_id, choice_id
             HAVING sum(count) >= $8) AS c
       LEFT JOIN endings e ON e.environment = $2 AND e.novel_id = c.novel_id AND e.choice_id = c.choice_id
       ORDER BY c.novel_id, e.sort_order NULLS LAST, c.choice_id`,
      [...this.spans(tenant, window), minimum],
    );
  }

  /** $1..$7 of countRows. */
  private spans(tenant: Tenant, window: ReportingWindow): unknown[] {
    const { months, days } = countSpans(window);
    return [
      tenant.partnerId,
      tenant.environment,
      months?.first ?? null,
      months?.last ?? null,
      days.map((span) => span.first),
      days.map((span) => span.last),
      days.map((span) => span.sign),
    ];
  }
}
