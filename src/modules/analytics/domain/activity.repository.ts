import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** One chapter-text read or one playback-position write (DECISIONS 14). */
export interface ReadingActivity {
  subscriberId: string;
  novelId: string;
  chapterNumber: number;
  kind: 'text' | 'audio';
  occurredAt: Date;
}

export abstract class ActivityRepository {
  abstract record(tenant: Tenant, activity: ReadingActivity): Promise<void>;
}
