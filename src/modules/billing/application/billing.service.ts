import { Injectable } from '@nestjs/common';
import { invalidRequest } from '../../../shared/errors/domain-error.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EntitlementsService, type Product } from '../../entitlements/index.js';
import { billingPeriod, currentMonth } from '../domain/billing-period.js';

export const BILLING_NOTE =
  'v1 simplification: active_count is the current number of active entitlements, whatever period is requested; the period_* fields give the requested month from the entitlement history.';

export interface BillingUsage {
  product: Product;
  period: string;
  activeCount: number;
  note: string;
  periodActiveAtEnd: number;
  periodPeakActive: number;
  periodAverageDailyActive: number;
  historyComplete: boolean;
}

/**
 * Billing usage (contract 4.2, DECISIONS 25). Counts only the caller's environment: a live
 * credential sees live entitlements, so sandbox entitlements never reach a live bill.
 */
@Injectable()
export class BillingService {
  constructor(private readonly entitlements: EntitlementsService) {}

  async usage(tenant: Tenant, product: Product, month?: string, now = new Date()): Promise<BillingUsage> {
    const period = billingPeriod(month ?? currentMonth(now), now);
    if (!period) throw invalidRequest(`period ${month} has not begun: ask for the current month (${currentMonth(now)}) or an earlier one.`);
    const [activeCount, history] = await Promise.all([
      this.entitlements.countActive(tenant, product),
      this.entitlements.activeCountHistory(tenant, product, period.start, period.measuredUntil, period.dayStarts),
    ]);
    return {
      product,
      period: period.month,
      activeCount,
      note: BILLING_NOTE,
      periodActiveAtEnd: history.activeAtEnd,
      periodPeakActive: history.peakActive,
      periodAverageDailyActive: Math.round(history.averageDailyActive * 100) / 100,
      historyComplete: history.historyComplete,
    };
  }
}
