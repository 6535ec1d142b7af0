import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { KidsActivityRepository } from '../domain/kids-activity.repository.js';
import { kidsEngagementSummary, MIN_SAMPLE_THRESHOLD, type KidsEngagementMeasures, type KidsEngagementSummary } from '../domain/kids-engagement-summary.js';

/** The children's engagement summary (contract 4.3, DECISIONS 15). */
@Injectable()
export class KidsEngagementService {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly activities: KidsActivityRepository,
  ) {}

  async summary(tenant: Tenant, window: ReportingWindow): Promise<KidsEngagementSummary> {
    return kidsEngagementSummary(window, await this.measures(tenant, window), new Date());
  }

  /**
   * The partner's figures of the window. The partner writes the entitlements, so only the
   * activity of accounts entitled in the window counts; the accounts stay in the database.
   */
  async measures(tenant: Tenant, window: ReportingWindow): Promise<KidsEngagementMeasures> {
    const { from, until } = window;
    const [activeAccounts, totals] = await Promise.all([
      this.entitlements.countActiveDuring(tenant, 'kidsapp', from, until),
      this.activities.totals(tenant, window, MIN_SAMPLE_THRESHOLD),
    ]);
    return { activeAccounts, ...totals };
  }
}
