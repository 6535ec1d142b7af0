import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import {
  EntitlementRepository,
  type Entitlement,
  type EntitlementChange,
  type EntitlementKey,
  type EntitlementState,
} from '../domain/entitlement.repository.js';
import type { EntitlementStatus, InternalPlan, Product } from '../domain/plans.js';
import { EntitlementEntity, EntitlementHistoryEntity, PlanMappingEntity } from './entitlement.entities.js';

const keyColumns = (key: EntitlementKey) => ({
  partnerId: key.tenant.partnerId,
  environment: key.tenant.environment,
  subscriberId: key.subscriberId,
  product: key.product,
});

@Injectable()
export class TypeOrmEntitlementRepository extends EntitlementRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async insertIfAbsent(key: EntitlementKey, state: EntitlementState): Promise<boolean> {
    // ON CONFLICT DO NOTHING waits for a concurrent insert of the same key to commit.
    const rows = await this.db.query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, partner_plan, internal_plan)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING RETURNING 1`,
      [key.tenant.partnerId, key.tenant.environment, key.subscriberId, key.product, state.status, state.partnerPlan, state.internalPlan],
    );
    return rows.length === 1;
  }

  async lockCurrent(key: EntitlementKey): Promise<EntitlementState> {
    const row = await this.db.manager
      .getRepository(EntitlementEntity)
      .findOneOrFail({ where: keyColumns(key), lock: { mode: 'pessimistic_write' } });
    return { status: row.status as EntitlementStatus, partnerPlan: row.partnerPlan, internalPlan: row.internalPlan as InternalPlan };
  }

  async update(key: EntitlementKey, state: EntitlementState): Promise<void> {
    await this.db.manager.getRepository(EntitlementEntity).update(keyColumns(key), { ...state, updatedAt: () => 'now()' });
  }

  async appendHistory(key: EntitlementKey, change: EntitlementChange): Promise<void> {
    await this.db.manager.getRepository(EntitlementHistoryEntity).insert({
      ...keyColumns(key),
      oldStatus: change.oldStatus,
      newStatus: change.next.status,
      partnerPlan: change.next.partnerPlan,
      internalPlan: change.next.internalPlan,
      changedBy: change.changedBy,
    });
  }

  async listForSubscriber(tenant: Tenant, subscriberId: string): Promise<Entitlement[]> {
    // Plain SQL: every reading and playback request reads it (issue 9).
    return this.db.query<Entitlement>(
      `SELECT product, status, partner_plan AS "partnerPlan", internal_plan AS "internalPlan", updated_at AS "updatedAt"
         FROM entitlements WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 ORDER BY product`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
  }

  async countActive(tenant: Tenant, product: Product): Promise<number> {
    return this.db.manager.getRepository(EntitlementEntity).countBy({
      partnerId: tenant.partnerId,
      environment: tenant.environment,
      product,
      status: 'active',
    });
  }

  async subscribersActiveDuring(tenant: Tenant, product: Product, from: Date, until: Date): Promise<string[]> {
    // Active at some instant of [from, until) means: active at `from` (the last change at
    // or before it made it active), or made active by a change inside the window. Changes
    // of one record are serialised by its row lock, so `id` orders changes at equal times.
    const rows = await this.db.query<{ subscriber_id: string }>(
      `SELECT subscriber_id FROM (
         SELECT DISTINCT ON (subscriber_id) subscriber_id, new_status
         FROM entitlement_history
         WHERE partner_id = $1 AND environment = $2 AND product = $3 AND changed_at <= $4
         ORDER BY subscriber_id, changed_at DESC, id DESC
       ) AS at_start
       WHERE new_status = 'active'
       UNION
       SELECT subscriber_id FROM entitlement_history
       WHERE partner_id = $1 AND environment = $2 AND product = $3 AND new_status = 'active'
         AND changed_at > $4 AND changed_at < $5`,
      [tenant.partnerId, tenant.environment, product, from, until],
    );
    return rows.map((row) => row.subscriber_id);
  }

  async mappedPlan(partnerId: string, partnerPlan: string): Promise<InternalPlan | null> {
    const row = await this.db.manager.getRepository(PlanMappingEntity).findOneBy({ partnerId, partnerPlan });
    return (row?.internalPlan as InternalPlan | undefined) ?? null;
  }

  async mapPlan(partnerId: string, partnerPlan: string, internalPlan: InternalPlan): Promise<number> {
    await this.db.manager.getRepository(PlanMappingEntity).upsert({ partnerId, partnerPlan, internalPlan }, ['partnerId', 'partnerPlan']);
    const result = await this.db.manager
      .getRepository(EntitlementEntity)
      .update({ partnerId, partnerPlan }, { internalPlan, updatedAt: () => 'now()' });
    return result.affected ?? 0;
  }
}
