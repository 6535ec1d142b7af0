import { Injectable } from '@nestjs/common';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ChosenEnding, ReadingTotals, StartedNovels } from '../domain/engagement-report.js';
import { EngagementRepository } from '../domain/engagement.repository.js';
import type { ReportingWindow } from '../domain/reporting-window.js';
import { ENGAGEMENT_STATEMENTS, engagementCountParameters } from '../queries.js';

/**
 * Analytics is a reporting context: it reads its own counts per day and month (kept by
 * triggers on the activity rollups and on the reading module's novel_progress, ADR 0129)
 * with read-only SQL. It never writes to the reading tables.
 */
@Injectable()
export class PgEngagementRepository extends EngagementRepository {
  // The report tolerates seconds of lag: it may read on the standby (ADR 0122).
  constructor(private readonly db: ReportingDb) {
    super();
  }

  async readingTotals(tenant: Tenant, window: ReportingWindow): Promise<ReadingTotals> {
    const [row] = await this.db.query<{ active_readers: number; chapters_read: number }>(ENGAGEMENT_STATEMENTS.readingTotals, [
      ...engagementCountParameters(tenant, window),
      window.start,
    ]);
    return { activeReaders: row.active_readers, chaptersRead: row.chapters_read };
  }

  async startedNovels(tenant: Tenant, window: ReportingWindow): Promise<StartedNovels> {
    const [row] = await this.db.query<{ started: number; finished: number }>(ENGAGEMENT_STATEMENTS.startedNovels, engagementCountParameters(tenant, window));
    return row;
  }

  endingCounts(tenant: Tenant, window: ReportingWindow, minimum: number): Promise<ChosenEnding[]> {
    return this.db.query<ChosenEnding>(ENGAGEMENT_STATEMENTS.endingCounts, [...engagementCountParameters(tenant, window), minimum]);
  }
}
