import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { ActivityRepository, type ReadingActivity } from '../domain/activity.repository.js';

/**
 * The door through which the reading and playback modules record activity. It joins the
 * caller's unit of work, if any, so the activity is written with the change it records.
 */
@Injectable()
export class ActivityRecorder {
  constructor(private readonly activities: ActivityRepository) {}

  record(tenant: Tenant, activity: ReadingActivity): Promise<void> {
    return this.activities.record(tenant, activity);
  }
}
