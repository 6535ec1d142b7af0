import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EntitlementsService, type Product } from '../../entitlements/index.js';

export const BILLING_NOTE =
  'v1 simplification: there is no per-period history; active_count is the current number of active entitlements, whatever period is requested.';

export interface BillingUsage {
  product: Product;
  period: string;
  activeCount: number;
  note: string;
}

/**
 * Billing usage (contract 4.2). Counts only the caller's environment: a live credential
 * sees live entitlements, so sandbox entitlements never reach a live bill.
 */
@Injectable()
export class BillingService {
  constructor(private readonly entitlements: EntitlementsService) {}

  async usage(tenant: Tenant, product: Product, period = currentPeriod()): Promise<BillingUsage> {
    const activeCount = await this.entitlements.countActive(tenant, product);
    return { product, period, activeCount, note: BILLING_NOTE };
  }
}

const currentPeriod = () => new Date().toISOString().slice(0, 7);
