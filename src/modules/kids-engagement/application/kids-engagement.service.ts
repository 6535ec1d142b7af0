import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { KidsActivityRepository } from '../domain/kids-activity.repository.js';
import { kidsEngagementSummary, type KidsEngagementSummary } from '../domain/kids-engagement-summary.js';

/** The children's engagement summary (contract 4.3, DECISIONS 15). */
@Injectable()
export class KidsEngagementService {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly activities: KidsActivityRepository,
  ) {}

  async summary(tenant: Tenant, window: ReportingWindow): Promise<KidsEngagementSummary> {
    // The accounts stay inside the service: they only select whose minutes are averaged.
    const accounts = await this.entitlements.subscribersActiveDuring(tenant, 'kidsapp', window.from, window.until);
    const [storiesCompleted, minutesRead] = await Promise.all([
      this.activities.storiesCompleted(tenant, window),
      this.activities.minutesRead(tenant, window, accounts),
    ]);
    return kidsEngagementSummary(window, { activeAccounts: accounts.length, storiesCompleted, minutesRead }, new Date());
  }
}
