export { EntitlementsModule } from './entitlements.module.js';
export { EntitlementsService, type FeaturesChangedListener } from './application/entitlements.service.js';
export type { ActiveCountHistory } from './domain/entitlement.repository.js';
export { MAX_LIVE_EFFECTIVE_AT_AGE_HOURS } from './domain/entitlement-ordering.js';
export {
  INTERNAL_PLANS,
  PRODUCTS,
  featuresOf,
  isInternalPlan,
  type EntitlementGrant,
  type InternalPlan,
  type Product,
  type SubscriberFeatures,
} from './domain/plans.js';
