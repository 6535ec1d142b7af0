import { sql, type SqlFragment } from '../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../shared/persistence/subscriber-key.js';
import type { Tenant } from '../../shared/tenancy/tenant.js';
import type { Product } from './domain/plans.js';
import { FEATURE_GRANTS } from './domain/plans.js';

/**
 * The statement builders of the entitlements module, for other modules' infrastructure and
 * the bench to embed (ADR 0025): the one door for SQL over entitlements' tables.
 */

/**
 * The subscriber's features (featuresOf over its active entitlements) as one row of three
 * booleans (`reading`, `audio`, `earlyAccess`). An aggregate without GROUP BY always answers
 * one row, so a subscriber without any entitlement gets three falses, never no row.
 */
export function featuresQuery(who: SubscriberKeySql): SqlFragment {
  return sql`SELECT coalesce(bool_or(product = ANY (${FEATURE_GRANTS.readingProducts})), false) AS reading,
         coalesce(bool_or(internal_plan = ANY (${FEATURE_GRANTS.audioPlans})), false) AS audio,
         coalesce(bool_or(internal_plan = ANY (${FEATURE_GRANTS.earlyAccessPlans})), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = ${who.partner} AND environment = ${who.environment} AND subscriber_id = ${who.subscriber} AND status = 'active'`;
}

/**
 * Of the `candidates` (a query of one `subscriber_id` column), those entitled to `product` at
 * some instant of [from, until): active at `from` (the last applied change effective at or
 * before it made it active), or made active by an applied change effective inside the window;
 * stale writes changed nothing and are left out. It checks each candidate's history, so it is
 * for a few candidates (the children's summary's unmarked sessions). `entitlement_active_at`
 * is this module's function (entitlements.database.sql).
 */
export function subscribersActiveDuringAmong(tenant: Tenant, product: Product, from: Date, until: Date, candidates: SqlFragment): SqlFragment {
  return sql`SELECT c.subscriber_id FROM (${candidates}) AS c (subscriber_id)
       WHERE entitlement_active_at(${tenant.partnerId}, ${tenant.environment}, ${product}, c.subscriber_id, ${from})
          OR EXISTS (SELECT FROM entitlement_history h
                      WHERE h.partner_id = ${tenant.partnerId} AND h.environment = ${tenant.environment} AND h.subscriber_id = c.subscriber_id
                        AND h.product = ${product} AND NOT h.stale AND h.new_status = 'active' AND h.effective_at > ${from} AND h.effective_at < ${until})`;
}
