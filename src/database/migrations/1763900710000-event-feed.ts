import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event feed (DECISIONS 22): every event gets `seq`, gap-free per (partner,
 * environment) in commit order. The counter row is locked by the transaction that writes
 * an event, so the next writer waits for its commit (or rollback) before taking the next
 * number. `pruned_through` is the highest seq removed by retention: an `after` below it
 * asks for events that are gone.
 */
export class EventFeed1763900710000 implements MigrationInterface {
  name = 'EventFeed1763900710000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partner_event_sequences (
        partner_id uuid NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        last_seq bigint NOT NULL,
        pruned_through bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (partner_id, environment)
      );
      ALTER TABLE webhook_events ADD COLUMN seq bigint;
      UPDATE webhook_events AS e SET seq = numbered.seq
        FROM (SELECT event_id, row_number() OVER (PARTITION BY partner_id, environment ORDER BY created_at, event_id) AS seq
                FROM webhook_events) AS numbered
       WHERE numbered.event_id = e.event_id;
      ALTER TABLE webhook_events ALTER COLUMN seq SET NOT NULL;
      INSERT INTO partner_event_sequences (partner_id, environment, last_seq)
        SELECT partner_id, environment, max(seq) FROM webhook_events GROUP BY partner_id, environment;
      DROP INDEX webhook_events_partner;
      CREATE UNIQUE INDEX webhook_events_feed ON webhook_events (partner_id, environment, seq);
      CREATE INDEX webhook_events_created ON webhook_events (created_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX webhook_events_created;
      DROP INDEX webhook_events_feed;
      CREATE INDEX webhook_events_partner ON webhook_events (partner_id, environment, created_at);
      ALTER TABLE webhook_events DROP COLUMN seq;
      DROP TABLE partner_event_sequences;
    `);
  }
}
