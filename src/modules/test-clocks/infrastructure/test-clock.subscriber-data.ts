import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { ErasedCounts, ExportedSections, SubscriberDataHolder } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/**
 * The sandbox test clock a subscriber is attached to (DECISIONS 28, 29): exported, and
 * dropped by an erasure, after taking the clock's row as its advances do. Being attached is
 * not data that refuses an attach, and the clock's own clean slate detaches by deleting it.
 */
@Injectable()
export class TestClockSubscriberData implements SubscriberDataHolder {
  readonly name = 'test clock';
  readonly columns = ['test_clock_subscribers.subscriber_id'];

  constructor(private readonly db: Db) {}

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const [clock] = await this.db.query(
      `SELECT c.id, c.name, c.frozen_time, s.attached_at FROM test_clock_subscribers s JOIN test_clocks c ON c.id = s.clock_id
        WHERE s.partner_id = $1 AND $2 = 'sandbox' AND s.subscriber_id = $3`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return { test_clock: clock ?? null };
  }

  async erase(tenant: Tenant, subscriberId: string): Promise<Partial<ErasedCounts>> {
    await this.db.query(
      `WITH clock AS (
         SELECT c.id FROM test_clock_subscribers s JOIN test_clocks c ON c.id = s.clock_id
          WHERE s.partner_id = $1 AND $2 = 'sandbox' AND s.subscriber_id = $3 FOR UPDATE OF c
       )
       DELETE FROM test_clock_subscribers WHERE partner_id = $1 AND subscriber_id = $3 AND clock_id IN (SELECT id FROM clock)`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return {};
  }
}
