import { Injectable } from '@nestjs/common';
import { SUBSCRIBER_KEY, SubscriberRows } from '../../../shared/persistence/subscriber-rows.js';
import type { ErasedCounts, ExportedSections } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/**
 * A subscriber's entitlements and their history, for export and erasure (DECISIONS 29).
 *
 * Billing usage of past months and the children's active accounts are counted from the
 * history (its moves, day peaks and activations, migrations 1764100400000 to 800000), whose
 * triggers would take a deleted row's moves out of past days. So erasure keeps the history
 * rows under the erasure's stand-in (an update of `subscriber_id` fires none of them),
 * closes what was still open at the erasure instant, as a cancel would, and deletes the
 * current records: the current counts drop, past periods answer as before.
 */
@Injectable()
export class EntitlementSubscriberData extends SubscriberRows {
  readonly name = 'entitlements';
  protected readonly tables = ['entitlements', 'entitlement_history'];

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const current = await this.rows(
      `SELECT product, status, partner_plan AS plan, internal_plan, created_at, updated_at, effective_at
         FROM entitlements WHERE ${SUBSCRIBER_KEY} ORDER BY product`,
      tenant,
      subscriberId,
    );
    const history = await this.rows(
      `SELECT product, old_status, new_status, partner_plan AS plan, internal_plan, changed_by, changed_at, effective_at, NOT stale AS applied
         FROM entitlement_history WHERE ${SUBSCRIBER_KEY} ORDER BY id`,
      tenant,
      subscriberId,
    );
    return { entitlements: { current, history } };
  }

  async erase(tenant: Tenant, subscriberId: string, standIn: string): Promise<Partial<ErasedCounts>> {
    const history = await this.replaceWithStandIn('entitlement_history', tenant, subscriberId, standIn);
    // The open ones end now (or at their own instant, if a test clock put it later).
    await this.db.query(
      `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, partner_plan, internal_plan, changed_by, effective_at)
       SELECT partner_id, environment, $4, product, status, 'canceled', partner_plan, internal_plan, 'erasure', greatest(clock_timestamp(), effective_at)
         FROM entitlements WHERE ${SUBSCRIBER_KEY} AND status <> 'canceled'`,
      [...this.key(tenant, subscriberId), standIn],
    );
    const current = await this.deleteRows('entitlements', tenant, subscriberId);
    return { entitlements: current + history };
  }
}
