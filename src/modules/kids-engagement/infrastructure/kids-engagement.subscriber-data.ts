import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { ErasedCounts, ExportedSections, SubscriberDataHolder } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** An account's sessions: kids_activity names the partner's subscriber `account_id`. */
const SESSIONS_OF = 'partner_id = $1 AND environment = $2 AND account_id = $3';

/**
 * An account's children's reading sessions, for export and erasure (DECISIONS 29). The
 * children's summary counts distinct accounts (and sums minutes) from these rows, so an
 * erasure keeps them under the erasure's stand-in, each child under a random one of its own:
 * the sessions' marks are recomputed against the entitlement history, which the
 * entitlements module (registered first) has moved to the same stand-in, so they and the
 * day counts stay as they were.
 */
@Injectable()
export class KidsEngagementSubscriberData implements SubscriberDataHolder {
  readonly name = 'kids sessions';
  readonly columns = ['kids_activity.account_id'];

  constructor(private readonly db: Db) {}

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const sessions = await this.db.query(
      `SELECT child_ref, story_id, minutes::float8 AS minutes, completed_at, occurred_at, imported_at
         FROM kids_activity WHERE ${SESSIONS_OF} ORDER BY occurred_at, child_ref, story_id`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return { kids_sessions: sessions };
  }

  /** Its children's sessions are the account's: a test clock's clean slate erases its sandbox ones (DECISIONS 28). */
  async holdsAny(tenant: Tenant, subscriberId: string): Promise<boolean> {
    const [{ held }] = await this.db.query<{ held: boolean }>(`SELECT EXISTS (SELECT FROM kids_activity WHERE ${SESSIONS_OF}) AS held`, [
      tenant.partnerId,
      tenant.environment,
      subscriberId,
    ]);
    return held;
  }

  async clear(tenant: Tenant, subscriberId: string): Promise<void> {
    await this.db.query(`DELETE FROM kids_activity WHERE ${SESSIONS_OF}`, [tenant.partnerId, tenant.environment, subscriberId]);
  }

  async erase(tenant: Tenant, subscriberId: string, standIn: string): Promise<Partial<ErasedCounts>> {
    const [{ sessions }] = await this.db.query<{ sessions: number }>(
      `WITH children AS (
         SELECT child_ref, '~' || gen_random_uuid() AS stand_in FROM kids_activity WHERE ${SESSIONS_OF} GROUP BY child_ref
       ), unlinked AS (
         UPDATE kids_activity k SET account_id = $4, child_ref = c.stand_in FROM children c
          WHERE k.partner_id = $1 AND k.environment = $2 AND k.account_id = $3 AND k.child_ref = c.child_ref RETURNING 1
       )
       SELECT count(*)::int AS sessions FROM unlinked`,
      [tenant.partnerId, tenant.environment, subscriberId, standIn],
    );
    return { kids_sessions: sessions };
  }
}
