export const PRODUCTS = ['textapp', 'audioapp', 'kidsapp'] as const;
export type Product = (typeof PRODUCTS)[number];

export const ENTITLEMENT_STATUSES = ['active', 'suspended', 'canceled'] as const;
export type EntitlementStatus = (typeof ENTITLEMENT_STATUSES)[number];

/** Internal plans and what each includes (DECISIONS 6). */
export const INTERNAL_PLANS = {
  text_standard: { audio: false, earlyAccess: false },
  text_early: { audio: false, earlyAccess: true },
  audio_standard: { audio: true, earlyAccess: false },
  audio_early: { audio: true, earlyAccess: true },
  kids_standard: { audio: false, earlyAccess: false },
} as const satisfies Record<string, PlanFeatures>;

export type InternalPlan = keyof typeof INTERNAL_PLANS;

export interface PlanFeatures {
  audio: boolean;
  earlyAccess: boolean;
}

export const isInternalPlan = (value: string): value is InternalPlan => Object.hasOwn(INTERNAL_PLANS, value);

const DEFAULT_PLAN: Record<Product, InternalPlan> = {
  textapp: 'text_standard',
  audioapp: 'audio_standard',
  kidsapp: 'kids_standard',
};

/**
 * The internal plan of an entitlement: the partner's own mapping of its plan name, else
 * the plan name itself when it is an internal code, else the product's default.
 */
export function resolvePlan(product: Product, partnerPlan: string | null, mapped: InternalPlan | null): InternalPlan {
  if (mapped) return mapped;
  if (partnerPlan && isInternalPlan(partnerPlan)) return partnerPlan;
  return DEFAULT_PLAN[product];
}

export interface SubscriberFeatures {
  /** May open novels and read chapter text: an active textapp or audioapp entitlement. */
  reading: boolean;
  /** May stream narration: an active entitlement whose plan includes audio. */
  audio: boolean;
  /** Receives each chapter 24 hours earlier. */
  earlyAccess: boolean;
}

/** What of an entitlement decides the features it grants. */
export interface EntitlementGrant {
  product: Product;
  status: EntitlementStatus;
  internalPlan: InternalPlan;
}

/**
 * What grants each feature, as lists: the products that allow reading and the plans that
 * include audio or early access. featuresOf reads them, and so can a SQL statement that
 * computes the features next to other rows (ADR 0123), so the rule has one source.
 */
export const FEATURE_GRANTS = {
  readingProducts: ['textapp', 'audioapp'] as readonly Product[],
  audioPlans: plansWith('audio'),
  earlyAccessPlans: plansWith('earlyAccess'),
} as const;

function plansWith(feature: keyof PlanFeatures): readonly InternalPlan[] {
  return (Object.keys(INTERNAL_PLANS) as InternalPlan[]).filter((plan) => INTERNAL_PLANS[plan][feature]);
}

/** A subscriber's features: the union over its active entitlements. */
export function featuresOf(entitlements: readonly EntitlementGrant[]): SubscriberFeatures {
  const active = entitlements.filter((e) => e.status === 'active');
  return {
    reading: active.some((e) => FEATURE_GRANTS.readingProducts.includes(e.product)),
    audio: active.some((e) => FEATURE_GRANTS.audioPlans.includes(e.internalPlan)),
    earlyAccess: active.some((e) => FEATURE_GRANTS.earlyAccessPlans.includes(e.internalPlan)),
  };
}
