import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import type { KidsActivityRecord } from './kids-activity.js';

export interface ImportCounts {
  inserted: number;
  /** Rows that repeated an earlier record's key (account, child, story, occurred_at). */
  updated: number;
  /**
   * The months (YYYY-MM-01) whose figures the batch changes: of its sessions' `occurred_at`
   * and `completed_at`, and of the completions it replaced.
   */
  months: string[];
}

/** The activity figures of a window, of the accounts entitled at some instant of it. */
export interface KidsActivityTotals {
  /** Accounts with activity: exact below the `enough` asked for, at least `enough` otherwise. */
  accountsWithActivity: number;
  storiesCompleted: number;
  minutesRead: number;
}

/** Children's reading sessions. Reads return partner-wide aggregates only. */
export abstract class KidsActivityRepository {
  /** Stores a batch; a record whose key exists replaces it, and within a batch the last wins. */
  abstract upsert(tenant: Tenant, records: readonly KidsActivityRecord[]): Promise<ImportCounts>;
  /**
   * The sessions completed (by `completed_at`) in the window and the minutes (by
   * `occurred_at`) of the accounts entitled at some instant of it, and how many of those
   * accounts had activity, counted up to `enough`. A session whose account was entitled at
   * its own instant counts without asking; the others are checked against the window's
   * kidsapp history (entitlements' `subscribersActiveDuringAmong`).
   * One statement.
   */
  abstract totals(tenant: Tenant, window: ReportingWindow, enough: number): Promise<KidsActivityTotals>;
}
