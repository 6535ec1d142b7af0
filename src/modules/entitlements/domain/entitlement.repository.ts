import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { EntitlementStatus, InternalPlan, Product } from './plans.js';

export interface EntitlementKey {
  tenant: Tenant;
  subscriberId: string;
  product: Product;
}

export interface EntitlementState {
  status: EntitlementStatus;
  partnerPlan: string | null;
  internalPlan: InternalPlan;
}

export interface Entitlement extends EntitlementState {
  product: Product;
  updatedAt: Date;
}

export interface EntitlementChange {
  oldStatus: EntitlementStatus | null;
  next: EntitlementState;
  changedBy: string;
}

/** Entitlement records, unique per (partner, environment, subscriber, product), and their history. */
export abstract class EntitlementRepository {
  /** Creates the record unless it exists; true when created. */
  abstract insertIfAbsent(key: EntitlementKey, state: EntitlementState): Promise<boolean>;
  /** The current record, locked until the surrounding transaction ends. */
  abstract lockCurrent(key: EntitlementKey): Promise<EntitlementState>;
  abstract update(key: EntitlementKey, state: EntitlementState): Promise<void>;
  abstract appendHistory(key: EntitlementKey, change: EntitlementChange): Promise<void>;
  abstract listForSubscriber(tenant: Tenant, subscriberId: string): Promise<Entitlement[]>;
  abstract countActive(tenant: Tenant, product: Product): Promise<number>;
  /**
   * Subscribers whose entitlement to `product` was active at some instant of
   * [from, until), according to the history of changes.
   */
  abstract subscribersActiveDuring(tenant: Tenant, product: Product, from: Date, until: Date): Promise<string[]>;
  /** The partner's mapping of one of its plan names, if any. */
  abstract mappedPlan(partnerId: string, partnerPlan: string): Promise<InternalPlan | null>;
  /** Records a mapping and re-plans the partner's entitlements that carry that plan name. */
  abstract mapPlan(partnerId: string, partnerPlan: string, internalPlan: InternalPlan): Promise<number>;
}
