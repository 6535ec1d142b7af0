import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { EntitlementState } from './entitlement.repository.js';

/**
 * What a write does to a record whose last accepted change happened at `recordEffectiveAt`.
 * Partners forward billing events from queues that reorder and retry, so a change that
 * happened before the record's is stale: it is acknowledged and recorded, never applied.
 * An equal instant is not stale (the later arrival wins, as without `effective_at`).
 */
export type WriteOutcome = 'stale' | 'unchanged' | 'changed';

export function writeOutcome(current: EntitlementState & { effectiveAt: Date }, next: EntitlementState, effectiveAt: Date): WriteOutcome {
  if (effectiveAt.getTime() < current.effectiveAt.getTime()) return 'stale';
  return sameState(current, next) ? 'unchanged' : 'changed';
}

export function sameState(a: EntitlementState, b: EntitlementState): boolean {
  return a.status === b.status && a.partnerPlan === b.partnerPlan && a.internalPlan === b.internalPlan;
}

/** How far ahead of the server's clock a partner's `effective_at` may be (clock skew, not scheduling). */
export const MAX_EFFECTIVE_AT_LEAD_MS = 5 * 60 * 1000;

/**
 * How far back a live `effective_at` may reach (DECISIONS 24): a period older than this is
 * settled, for billing and for the children's summary, and no later write rewrites it.
 */
export const MAX_LIVE_EFFECTIVE_AT_AGE_HOURS = 72;

/** Why `effectiveAt` cannot be accepted at `now` in `environment`, or undefined when it can. */
export function effectiveAtRefusal(effectiveAt: Date, now: Date, environment: Environment): string | undefined {
  if (effectiveAt.getTime() > now.getTime() + MAX_EFFECTIVE_AT_LEAD_MS) {
    return 'effective_at must not be more than 5 minutes ahead of the current time: send when the change happened.';
  }
  if (environment === 'live' && effectiveAt.getTime() < now.getTime() - MAX_LIVE_EFFECTIVE_AT_AGE_HOURS * 3_600_000) {
    return `effective_at must be at most ${MAX_LIVE_EFFECTIVE_AT_AGE_HOURS} hours in the past in live: older periods are settled (billing, children's summary). Send the change without effective_at to apply it now.`;
  }
  return undefined;
}
