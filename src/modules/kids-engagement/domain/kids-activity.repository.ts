import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import type { KidsActivityRecord } from './kids-activity.js';

export interface ImportCounts {
  inserted: number;
  /** Rows that repeated an earlier record's key (account, child, story, occurred_at). */
  updated: number;
}

export interface KidsActivityTotals {
  accountsWithActivity: number;
  storiesCompleted: number;
  minutesRead: number;
}

/** Children's reading sessions. Reads return partner-wide aggregates only. */
export abstract class KidsActivityRepository {
  /** Stores a batch; a record whose key exists replaces it, and within a batch the last wins. */
  abstract upsert(tenant: Tenant, records: readonly KidsActivityRecord[]): Promise<ImportCounts>;
  /**
   * Sessions in the window of the given accounts only: the accounts among them with
   * activity, the sessions completed (by `completed_at`) and their minutes (by `occurred_at`).
   */
  abstract totals(tenant: Tenant, window: ReportingWindow, accountIds: readonly string[]): Promise<KidsActivityTotals>;
}
