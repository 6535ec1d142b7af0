import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vacuum the delivery queue by what it churns, not by its size (ADR 0060).
 *
 * Each delivered row leaves two dead entries at the head of its tenant's range in
 * `webhook_deliveries_tenant_due` (the claim's lease, then the outcome), and every claim,
 * for every partner, walks them until vacuum removes them. By default autovacuum waits for
 * 20 % of a table that keeps every delivery for the event retention (90 days), and then
 * skips the indexes when fewer than 2 % of its pages hold dead rows, which is always the case
 * for a queue whose churn sits in its newest pages. So it vacuums after 10 000 dead rows plus
 * 0.5 % of the table, and cleans the indexes every time.
 */
export class WebhookQueueVacuum1764200900000 implements MigrationInterface {
  name = 'WebhookQueueVacuum1764200900000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE webhook_deliveries SET (
        autovacuum_vacuum_threshold = 10000, autovacuum_vacuum_scale_factor = 0.005, vacuum_index_cleanup = on)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhook_deliveries RESET (autovacuum_vacuum_threshold, autovacuum_vacuum_scale_factor, vacuum_index_cleanup)`);
  }
}
