import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook work that must not grow with a backlog (DECISIONS 27, ADR 0060).
 * - `webhook_deliveries_leased`: the fair claim counts each tenant's live leases; through
 *   the due index that count read every delivery waiting out a retry delay, now only the
 *   rows holding a lease (in flight, or left by a replica that died).
 * - `webhook_deliveries_undelivered` replaces `webhook_deliveries_due`: the backlog gauges
 *   count pending and failed rows and find the oldest due one from it alone, never
 *   reading delivered rows, which grow without bound. `next_attempt_at` is included, not
 *   a key: ordered by it across tenants, the index tempted the planner into reading every
 *   tenant's rows to find one tenant's earliest.
 */
export class WebhookBacklogCost1764100000000 implements MigrationInterface {
  name = 'WebhookBacklogCost1764100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (partner_id, environment, next_attempt_at)
        WHERE status = 'pending' AND claim_token IS NOT NULL;
      CREATE INDEX webhook_deliveries_undelivered ON webhook_deliveries (status) INCLUDE (next_attempt_at)
        WHERE status IN ('pending', 'failed');
      DROP INDEX webhook_deliveries_due;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      DROP INDEX webhook_deliveries_undelivered;
      DROP INDEX webhook_deliveries_leased;
    `);
  }
}
