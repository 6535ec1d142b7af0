import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { engagementReport, MINIMUM_COHORT_SIZE, type EngagementReport } from '../domain/engagement-report.js';
import { EngagementRepository } from '../domain/engagement.repository.js';
import type { ReportingWindow } from '../domain/reporting-window.js';

/** The engagement report of one partner and environment (contract 4.1, DECISIONS 14). */
@Injectable()
export class EngagementReportService {
  constructor(private readonly statistics: EngagementRepository) {}

  async report(tenant: Tenant, window: ReportingWindow): Promise<EngagementReport> {
    const [reading, novels, endings] = await Promise.all([
      this.statistics.readingTotals(tenant, window),
      this.statistics.startedNovels(tenant, window),
      this.statistics.endingCounts(tenant, window, MINIMUM_COHORT_SIZE),
    ]);
    return engagementReport(window, reading, novels, endings, new Date());
  }
}
