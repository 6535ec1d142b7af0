import { sql, type SqlFragment } from '../../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../../shared/persistence/subscriber-key.js';
import { FEATURE_GRANTS } from '../domain/plans.js';

/**
 * The subscriber's features (featuresOf over its active entitlements) as one row of three
 * booleans (`reading`, `audio`, `earlyAccess`), for another module's statement to embed
 * (ADR 0123, 0025): the entitlements module owns its table, so it writes the query over it.
 * An aggregate without GROUP BY always answers one row, so a subscriber without any
 * entitlement gets three falses, never no row.
 */
export function subscriberFeaturesQuery(who: SubscriberKeySql): SqlFragment {
  return sql`SELECT coalesce(bool_or(product = ANY (${FEATURE_GRANTS.readingProducts})), false) AS reading,
         coalesce(bool_or(internal_plan = ANY (${FEATURE_GRANTS.audioPlans})), false) AS audio,
         coalesce(bool_or(internal_plan = ANY (${FEATURE_GRANTS.earlyAccessPlans})), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = ${who.partner} AND environment = ${who.environment} AND subscriber_id = ${who.subscriber} AND status = 'active'`;
}
