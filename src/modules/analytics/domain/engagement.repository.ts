import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ChosenEnding, ReadingTotals, StartedNovels } from './engagement-report.js';
import type { ReportingWindow } from './reporting-window.js';

/**
 * Read-only aggregates over the reading tables, for one partner and environment. Every
 * method returns counts only: no subscriber identifier ever leaves the adapter.
 */
export abstract class EngagementRepository {
  abstract readingTotals(tenant: Tenant, window: ReportingWindow): Promise<ReadingTotals>;
  /** Novels whose `started_at` falls in the window, and how many of them are finished. */
  abstract startedNovels(tenant: Tenant, window: ReportingWindow): Promise<StartedNovels>;
  /**
   * Endings chosen in the window (by `finished_at`), each (novel, choice) chosen at least
   * `minimum` times: small cohorts never leave the database, and a report does not carry
   * (and hold in memory while it runs) the thousands of rows it would then drop. In no
   * particular order and unlabelled: labelEndings orders and labels them.
   */
  abstract endingCounts(tenant: Tenant, window: ReportingWindow, minimum: number): Promise<ChosenEnding[]>;
}
