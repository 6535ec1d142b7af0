import { FEATURE_GRANTS } from '../domain/plans.js';

/**
 * The subscriber's features (featuresOf over its active entitlements) as one row of three
 * booleans, for another module's statement to join (ADR 0083): the entitlements module
 * owns its table, so it writes the query over it. The statement must bind $1, $2, $3 to the
 * partner, environment and subscriber, and $4, $5, $6 to SUBSCRIBER_FEATURES_PARAMETERS.
 * An aggregate without GROUP BY always answers one row, so a subscriber without any
 * entitlement gets three falses, never no row.
 */
export const SUBSCRIBER_FEATURES_SQL = `SELECT coalesce(bool_or(product = ANY ($4)), false) AS reading,
         coalesce(bool_or(internal_plan = ANY ($5)), false) AS audio,
         coalesce(bool_or(internal_plan = ANY ($6)), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND status = 'active'`;

export const SUBSCRIBER_FEATURES_PARAMETERS: readonly unknown[] = [
  FEATURE_GRANTS.readingProducts,
  FEATURE_GRANTS.audioPlans,
  FEATURE_GRANTS.earlyAccessPlans,
];
