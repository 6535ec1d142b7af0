import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { kidsEngagementSummary, type KidsEngagementSummary } from '../domain/kids-engagement-summary.js';
import type { KidsMonthWindow } from './kids-month-window.js';
import { KidsMonthFiguresService } from './kids-month-figures.service.js';

/** The children's engagement summary (contract 4.3, DECISIONS 15). */
@Injectable()
export class KidsEngagementService {
  constructor(private readonly monthFigures: KidsMonthFiguresService) {}

  /** Composed from the window's fixed months: a repeat answers the same, whatever was written since. */
  async summary(tenant: Tenant, window: KidsMonthWindow): Promise<KidsEngagementSummary> {
    return kidsEngagementSummary(window, await this.monthFigures.figuresOf(tenant, window.months));
  }
}
