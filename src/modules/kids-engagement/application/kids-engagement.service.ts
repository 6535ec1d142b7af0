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
    // The accounts stay inside the service: they only select whose activity counts. The
    // partner writes the entitlements, so only the activity of entitled accounts is counted.
    const accounts = this.entitlements.subscribersActiveDuringQuery(tenant, 'kidsapp', window.from, window.until);
    return kidsEngagementSummary(window, await this.activities.totals(tenant, window, accounts), new Date());
  }
}
