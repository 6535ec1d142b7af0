import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { ActivityRepository, type ReadingActivity } from '../domain/activity.repository.js';

/**
 * Appends the raw event. A trigger on `reading_activity` rolls it up, in the same
 * transaction, into the per-day tables the engagement report counts from
 * (migration 1763900400000), so nothing else needs to be written here.
 */
@Injectable()
export class PgActivityRepository extends ActivityRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async record(tenant: Tenant, activity: ReadingActivity): Promise<void> {
    await this.db.query(
      `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [tenant.partnerId, tenant.environment, activity.subscriberId, activity.novelId, activity.chapterNumber, activity.kind, activity.occurredAt],
    );
  }
}
