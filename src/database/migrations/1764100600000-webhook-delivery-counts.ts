import type { MigrationInterface, QueryRunner } from 'typeorm';
import { countFunction, countTriggers, signedRows, type Change } from './helpers/signed-counts.v1.js';

/**
 * Signed counts of undelivered webhook deliveries by status (ADR 0060), so that
 * the backlog gauges read a few rows, not one index entry per delivery waiting: behind a
 * backlog of millions that read cost every replica a second of PostgreSQL CPU every 15 s.
 * Delivered rows are not counted (nothing reads their number, and they grow without bound).
 */
export class WebhookDeliveryCounts1764100600000 implements MigrationInterface {
  name = 'WebhookDeliveryCounts1764100600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_delivery_counts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('pending', 'failed')),
        count bigint NOT NULL,
        settled boolean NOT NULL DEFAULT false
      );
      CREATE INDEX webhook_delivery_counts_status ON webhook_delivery_counts (status) INCLUDE (count);
      CREATE INDEX webhook_delivery_counts_unsettled ON webhook_delivery_counts (id) WHERE NOT settled;

      ${countFunction('webhook_delivery_count', deltas)}
      ${countTriggers('webhook_deliveries', 'webhook_delivery_count', null, 'OLD.status IS DISTINCT FROM NEW.status')}

      INSERT INTO webhook_delivery_counts (status, count, settled)
      SELECT status, count(*), true FROM webhook_deliveries WHERE status IN ('pending', 'failed') GROUP BY status;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER signed_count_insert ON webhook_deliveries;
      DROP TRIGGER signed_count_update ON webhook_deliveries;
      DROP TRIGGER signed_count_delete ON webhook_deliveries;
      DROP FUNCTION webhook_delivery_count();
      DROP TABLE webhook_delivery_counts;
    `);
  }
}

function deltas(change: Change): string {
  return `INSERT INTO webhook_delivery_counts (status, count)
          SELECT status, sum(sign) FROM (${signedRows(['status'], change)}) AS r
           WHERE status IN ('pending', 'failed') GROUP BY status HAVING sum(sign) <> 0;`;
}
