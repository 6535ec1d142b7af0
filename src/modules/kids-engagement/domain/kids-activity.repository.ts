import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import type { KidsActivityRecord } from './kids-activity.js';

export interface ImportCounts {
  inserted: number;
  /** Rows that repeated an earlier record's key (account, child, story, occurred_at). */
  updated: number;
}

/** Children's reading sessions. Reads return partner-wide aggregates only. */
export abstract class KidsActivityRepository {
  /** Stores a batch; a record whose key exists replaces it, and within a batch the last wins. */
  abstract upsert(tenant: Tenant, records: readonly KidsActivityRecord[]): Promise<ImportCounts>;
  /** Sessions whose `completed_at` falls in the window. */
  abstract storiesCompleted(tenant: Tenant, window: ReportingWindow): Promise<number>;
  /** Minutes of the sessions in the window (by `occurred_at`) of the given accounts. */
  abstract minutesRead(tenant: Tenant, window: ReportingWindow, accountIds: readonly string[]): Promise<number>;
}
