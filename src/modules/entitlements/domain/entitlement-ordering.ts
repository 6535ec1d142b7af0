import type { EntitlementState } from './entitlement.repository.js';

/**
 * What a write does to a record whose last accepted change happened at `recordEffectiveAt`.
 * Partners forward billing events from queues that reorder and retry, so a change that
 * happened before the record's is stale: it is acknowledged and recorded, never applied.
 * An equal instant is not stale (the later arrival wins, as without `effective_at`).
 */
export type WriteOutcome = 'stale' | 'unchanged' | 'changed';

export function writeOutcome(
  current: EntitlementState & { effectiveAt: Date },
  next: EntitlementState,
  effectiveAt: Date,
): WriteOutcome {
  if (effectiveAt.getTime() < current.effectiveAt.getTime()) return 'stale';
  return sameState(current, next) ? 'unchanged' : 'changed';
}

export function sameState(a: EntitlementState, b: EntitlementState): boolean {
  return a.status === b.status && a.partnerPlan === b.partnerPlan && a.internalPlan === b.internalPlan;
}

/** How far ahead of the server's clock a partner's `effective_at` may be (clock skew, not scheduling). */
export const MAX_EFFECTIVE_AT_LEAD_MS = 5 * 60 * 1000;

export function isAcceptableEffectiveAt(effectiveAt: Date, now: Date): boolean {
  return effectiveAt.getTime() <= now.getTime() + MAX_EFFECTIVE_AT_LEAD_MS;
}
