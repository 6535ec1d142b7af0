import type { SqlFragment } from '../../../shared/persistence/sql.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import type { KidsActivityRecord } from './kids-activity.js';

export interface ImportCounts {
  inserted: number;
  /** Rows that repeated an earlier record's key (account, child, story, occurred_at). */
  updated: number;
}

export interface KidsActivityTotals {
  /** Accounts entitled at some instant of the window. */
  activeAccounts: number;
  accountsWithActivity: number;
  storiesCompleted: number;
  minutesRead: number;
}

/** Children's reading sessions. Reads return partner-wide aggregates only. */
export abstract class KidsActivityRepository {
  /** Stores a batch; a record whose key exists replaces it, and within a batch the last wins. */
  abstract upsert(tenant: Tenant, records: readonly KidsActivityRecord[]): Promise<ImportCounts>;
  /**
   * Sessions in the window of the `accounts` (a query of one `subscriber_id` column) only:
   * how many accounts, those among them with activity, the sessions completed (by
   * `completed_at`) and their minutes (by `occurred_at`). One statement.
   */
  abstract totals(tenant: Tenant, window: ReportingWindow, accounts: SqlFragment): Promise<KidsActivityTotals>;
}
