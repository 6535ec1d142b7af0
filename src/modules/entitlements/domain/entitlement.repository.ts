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

/** The record as it stands, with when its last accepted change happened. */
export interface CurrentEntitlement extends EntitlementState {
  effectiveAt: Date;
  /** The database's clock when the record was locked: the receipt time of a write without `effective_at`. */
  lockedAt: Date;
}

export interface EntitlementChange {
  oldStatus: EntitlementStatus | null;
  next: EntitlementState;
  changedBy: string;
  effectiveAt: Date;
  /** A write older than the record's last change: acknowledged and kept here, not applied. */
  stale: boolean;
}

/** What the applied history says of a product's active entitlements over a period (DECISIONS 25). */
export interface ActiveCountHistory {
  /** Active at `from` (after the changes effective at that instant). */
  activeAtStart: number;
  /** Active at `until`. */
  activeAtEnd: number;
  /** The most active at any instant of [from, until]. */
  peakActive: number;
  /** Mean of the counts at each of `dayStarts`. */
  averageDailyActive: number;
  /** Whether every record's creation is in the history (records written before the history kept nothing). */
  historyComplete: boolean;
}

/** Entitlement records, unique per (partner, environment, subscriber, product), and their history. */
export abstract class EntitlementRepository {
  /**
   * Creates the record unless it exists, effective at `effectiveAt` (null: the database's
   * clock); the instant it was created with, or null when it already existed.
   */
  abstract insertIfAbsent(key: EntitlementKey, state: EntitlementState, effectiveAt: Date | null): Promise<Date | null>;
  /** The current record, locked until the surrounding transaction ends. */
  abstract lockCurrent(key: EntitlementKey): Promise<CurrentEntitlement>;
  abstract update(key: EntitlementKey, state: EntitlementState, effectiveAt: Date): Promise<void>;
  /** Moves the record's instant forward (never back) without changing its state. */
  abstract advanceEffectiveAt(key: EntitlementKey, effectiveAt: Date): Promise<void>;
  abstract appendHistory(key: EntitlementKey, change: EntitlementChange): Promise<void>;
  abstract listForSubscriber(tenant: Tenant, subscriberId: string): Promise<Entitlement[]>;
  abstract countActive(tenant: Tenant, product: Product): Promise<number>;
  /** The active count through [from, until) from the applied history, sampled at `dayStarts` too. */
  abstract activeCountHistory(tenant: Tenant, product: Product, from: Date, until: Date, dayStarts: Date[]): Promise<ActiveCountHistory>;
  /**
   * How many subscribers were entitled to `product` at some instant of [from, until) (both
   * UTC midnights), according to the applied history.
   */
  abstract countActiveDuring(tenant: Tenant, product: Product, from: Date, until: Date): Promise<number>;
  /** The partner's mapping of one of its plan names, if any. */
  abstract mappedPlan(partnerId: string, partnerPlan: string): Promise<InternalPlan | null>;
  /**
   * Records a mapping and re-plans the partner's entitlements that carry that plan name;
   * returns the (environment, subscriber) of each entitlement re-planned.
   */
  abstract mapPlan(partnerId: string, partnerPlan: string, internalPlan: InternalPlan): Promise<{ tenant: Tenant; subscriberId: string }[]>;
}
