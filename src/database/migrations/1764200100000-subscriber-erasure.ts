import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A subscriber's erasure (DECISIONS 29, ADR 0138):
 *
 * - `webhook_deliveries.status` gains `cancelled`: the undelivered deliveries of an erased
 *   subscriber's events are not attempted again (the counts of pending and failed ones,
 *   migration 1764100600000, see the move out of them).
 * - `webhook_events_subscriber`: the events naming a subscriber, by partner and
 *   environment, so an export or an erasure reads them without walking the partner's feed.
 *   Partial: erased events (and events of no subscriber) are not in it.
 */
export class SubscriberErasure1764200100000 implements MigrationInterface {
  name = 'SubscriberErasure1764200100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check;
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled'));
      CREATE INDEX webhook_events_subscriber ON webhook_events (partner_id, environment, (payload #>> '{data,subscriber_id}'))
        WHERE payload #>> '{data,subscriber_id}' IS NOT NULL;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX webhook_events_subscriber;
      UPDATE webhook_deliveries SET status = 'failed' WHERE status = 'cancelled';
      ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_status_check;
      ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed'));
    `);
  }
}
