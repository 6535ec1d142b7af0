import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EntitlementRepository, type Entitlement, type EntitlementKey, type EntitlementState } from '../domain/entitlement.repository.js';
import { featuresOf, resolvePlan, type EntitlementStatus, type InternalPlan, type Product, type SubscriberFeatures } from '../domain/plans.js';

export interface EntitlementWrite {
  subscriberId: string;
  product: Product;
  status: EntitlementStatus;
  /** The partner's plan name; absent keeps the current plan (or the product default). */
  plan?: string;
}

/** Entitlements (contract 3, DECISIONS 6): upserts with history, and the features they grant. */
@Injectable()
export class EntitlementsService {
  constructor(
    private readonly entitlements: EntitlementRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * Creates or updates the record. Safe under any concurrency: the record is locked while
   * it is compared and changed, and every accepted change appends exactly one history row.
   * Returns whether anything changed.
   */
  async upsert(tenant: Tenant, changedBy: string, write: EntitlementWrite): Promise<boolean> {
    const key: EntitlementKey = { tenant, subscriberId: write.subscriberId, product: write.product };
    const mapped = write.plan ? await this.entitlements.mappedPlan(tenant.partnerId, write.plan) : null;
    return this.unitOfWork.run(async () => {
      const requested: EntitlementState = {
        status: write.status,
        partnerPlan: write.plan ?? null,
        internalPlan: resolvePlan(write.product, write.plan ?? null, mapped),
      };
      if (await this.entitlements.insertIfAbsent(key, requested)) {
        await this.entitlements.appendHistory(key, { oldStatus: null, next: requested, changedBy });
        return true;
      }
      const current = await this.entitlements.lockCurrent(key);
      const next = write.plan === undefined ? { ...requested, partnerPlan: current.partnerPlan, internalPlan: current.internalPlan } : requested;
      if (sameState(current, next)) return false;
      await this.entitlements.update(key, next);
      await this.entitlements.appendHistory(key, { oldStatus: current.status, next, changedBy });
      return true;
    });
  }

  list(tenant: Tenant, subscriberId: string): Promise<Entitlement[]> {
    return this.entitlements.listForSubscriber(tenant, subscriberId);
  }

  /** What the subscriber may do now, from its active entitlements. */
  async features(tenant: Tenant, subscriberId: string): Promise<SubscriberFeatures> {
    return featuresOf(await this.entitlements.listForSubscriber(tenant, subscriberId));
  }

  countActive(tenant: Tenant, product: Product): Promise<number> {
    return this.entitlements.countActive(tenant, product);
  }

  /**
   * Subscribers whose entitlement to `product` was active at some instant of
   * [from, until): active when the window opened, or activated inside it. Read from the
   * history, so an entitlement canceled since still counts for the window it was active in.
   */
  subscribersActiveDuring(tenant: Tenant, product: Product, from: Date, until: Date): Promise<string[]> {
    return this.entitlements.subscribersActiveDuring(tenant, product, from, until);
  }

  mapPlan(partnerId: string, partnerPlan: string, internalPlan: InternalPlan): Promise<number> {
    return this.unitOfWork.run(() => this.entitlements.mapPlan(partnerId, partnerPlan, internalPlan));
  }
}

function sameState(a: EntitlementState, b: EntitlementState): boolean {
  return a.status === b.status && a.partnerPlan === b.partnerPlan && a.internalPlan === b.internalPlan;
}
