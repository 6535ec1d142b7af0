import { Injectable } from '@nestjs/common';
import { Listeners } from '../../../shared/listeners.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { SubscriberClock } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import {
  EntitlementRepository,
  type ActiveCountHistory,
  type Entitlement,
  type EntitlementKey,
  type EntitlementState,
} from '../domain/entitlement.repository.js';
import { invalidRequest } from '../../../shared/errors/domain-error.js';
import { effectiveAtRefusal, writeOutcome } from '../domain/entitlement-ordering.js';
import { featuresOf, resolvePlan, type EntitlementStatus, type InternalPlan, type Product, type SubscriberFeatures } from '../domain/plans.js';

export interface EntitlementWrite {
  subscriberId: string;
  product: Product;
  status: EntitlementStatus;
  /** The partner's plan name; absent keeps the current plan (or the product default). */
  plan?: string;
  /** When the change happened at the partner; absent: when it is received. */
  effectiveAt?: Date;
}

/** What became of a write: applied, or acknowledged as stale (older than the record's last change). */
export interface EntitlementWriteResult {
  applied: boolean;
}

/**
 * Called inside the transaction of an applied change that may have changed what a
 * subscriber may do (its status or plan): modules that derive state from the features
 * (the release notification schedule) keep it in step, without entitlements knowing them.
 */
export type FeaturesChangedListener = (tenant: Tenant, subscriberId: string) => Promise<void>;

/** Entitlements (contract 3, DECISIONS 6 and 24): ordered upserts with history, and the features they grant. */
@Injectable()
export class EntitlementsService {
  private readonly featureListeners = new Listeners<Parameters<FeaturesChangedListener>>();

  constructor(
    private readonly entitlements: EntitlementRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: SubscriberClock,
  ) {}

  /**
   * Creates or updates the record. Safe under any concurrency: the record is locked while
   * it is compared and changed, so of two racing writes the one that happened later wins
   * whatever order they arrive in; every accepted change, and every stale write, appends
   * exactly one history row.
   */
  async upsert(tenant: Tenant, changedBy: string, write: EntitlementWrite): Promise<EntitlementWriteResult> {
    const key: EntitlementKey = { tenant, subscriberId: write.subscriberId, product: write.product };
    const mapped = write.plan ? await this.entitlements.mappedPlan(tenant.partnerId, write.plan) : null;
    return this.unitOfWork.run(async () => {
      // The subscriber's time first (its test clock held until commit), then the record's lock.
      const time = await this.clock.timeForWrite(tenant, write.subscriberId);
      const refusal = write.effectiveAt && effectiveAtRefusal(write.effectiveAt, time.now, tenant.environment);
      if (refusal) throw invalidRequest(refusal);
      // On a test clock a write without effective_at happens at the clock's time (DECISIONS 28);
      // otherwise at the database's, when the record is locked.
      const stamped = write.effectiveAt ?? (time.testClockId === null ? undefined : time.now);
      const requested: EntitlementState = {
        status: write.status,
        partnerPlan: write.plan ?? null,
        internalPlan: resolvePlan(write.product, write.plan ?? null, mapped),
      };
      const createdAt = await this.entitlements.insertIfAbsent(key, requested, stamped ?? null);
      if (createdAt) {
        await this.entitlements.appendHistory(key, { oldStatus: null, next: requested, changedBy, effectiveAt: createdAt, stale: false });
        await this.featuresChanged(tenant, write.subscriberId);
        return { applied: true };
      }
      const current = await this.entitlements.lockCurrent(key);
      const effectiveAt = stamped ?? current.lockedAt;
      const next = write.plan === undefined ? { ...requested, partnerPlan: current.partnerPlan, internalPlan: current.internalPlan } : requested;
      const outcome = writeOutcome(current, next, effectiveAt);
      if (outcome === 'stale') {
        await this.entitlements.appendHistory(key, { oldStatus: current.status, next, changedBy, effectiveAt, stale: true });
        return { applied: false };
      }
      if (outcome === 'unchanged') {
        // A confirmation still moves the record's instant forward, so that a change older
        // than it, arriving later, is recognised as stale.
        await this.entitlements.advanceEffectiveAt(key, effectiveAt);
        return { applied: true };
      }
      await this.entitlements.update(key, next, effectiveAt);
      await this.entitlements.appendHistory(key, { oldStatus: current.status, next, changedBy, effectiveAt, stale: false });
      await this.featuresChanged(tenant, write.subscriberId);
      return { applied: true };
    });
  }

  onFeaturesChanged(listener: FeaturesChangedListener): void {
    this.featureListeners.add(listener);
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

  /** Active entitlements of `product` over [from, until), from the applied history (DECISIONS 25). */
  activeCountHistory(tenant: Tenant, product: Product, from: Date, until: Date, dayStarts: Date[]): Promise<ActiveCountHistory> {
    return this.entitlements.activeCountHistory(tenant, product, from, until, dayStarts);
  }

  /**
   * How many subscribers were entitled to `product` at some instant of [from, until) (whole
   * UTC days): active when the window opened, or activated inside it. Read from the history,
   * so an entitlement canceled since still counts for the window it was active in.
   */
  countActiveDuring(tenant: Tenant, product: Product, from: Date, until: Date): Promise<number> {
    return this.entitlements.countActiveDuring(tenant, product, from, until);
  }

  /** Records the mapping and re-plans the entitlements carrying that plan name; returns how many. */
  mapPlan(partnerId: string, partnerPlan: string, internalPlan: InternalPlan): Promise<number> {
    return this.unitOfWork.run(async () => {
      const replanned = await this.entitlements.mapPlan(partnerId, partnerPlan, internalPlan);
      for (const { tenant, subscriberId } of replanned) await this.featuresChanged(tenant, subscriberId);
      return replanned.length;
    });
  }

  private featuresChanged(tenant: Tenant, subscriberId: string): Promise<void> {
    return this.featureListeners.notify(tenant, subscriberId);
  }
}
