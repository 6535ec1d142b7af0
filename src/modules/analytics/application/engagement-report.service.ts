import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CatalogService } from '../../catalog/index.js';
import { engagementReport, labelEndings, MINIMUM_COHORT_SIZE, type EngagementReport } from '../domain/engagement-report.js';
import { EngagementRepository } from '../domain/engagement.repository.js';
import type { ReportingWindow } from '../domain/reporting-window.js';

/** The engagement report of one partner and environment (contract 4.1, DECISIONS 14). */
@Injectable()
export class EngagementReportService {
  constructor(
    private readonly statistics: EngagementRepository,
    private readonly catalog: CatalogService,
  ) {}

  async report(tenant: Tenant, window: ReportingWindow): Promise<EngagementReport> {
    // Endings are labelled from the catalog in memory, not joined in SQL: more endings reach the
    // minimum as the audience grows, and the join and its sort grew the database's CPU with them.
    const [reading, novels, endings, labels] = await Promise.all([
      this.statistics.readingTotals(tenant, window),
      this.statistics.startedNovels(tenant, window),
      this.statistics.endingCounts(tenant, window, MINIMUM_COHORT_SIZE),
      this.catalog.endingLabels(tenant.environment),
    ]);
    return engagementReport(window, reading, novels, labelEndings(endings, labels), new Date());
  }
}
