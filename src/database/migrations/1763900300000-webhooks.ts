import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints, their signing secrets, and the delivery queue fed by the outbox
 * (`webhook_events`): one delivery per (event, endpoint), each attempt logged (DECISIONS 16).
 */
export class Webhooks1763900300000 implements MigrationInterface {
  name = 'Webhooks1763900300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        partner_id uuid NOT NULL REFERENCES partners (id),
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        url text NOT NULL,
        event_types text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_endpoints_partner ON webhook_endpoints (partner_id, environment, created_at);

      -- expires_at is null for the current secret; a rotated-out secret keeps signing until it.
      CREATE TABLE webhook_endpoint_secrets (
        id bigserial PRIMARY KEY,
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        sealed_secret text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz
      );
      CREATE INDEX webhook_endpoint_secrets_endpoint ON webhook_endpoint_secrets (endpoint_id);
      CREATE UNIQUE INDEX webhook_endpoint_secrets_current ON webhook_endpoint_secrets (endpoint_id) WHERE expires_at IS NULL;

      -- next_attempt_at: when a pending delivery is due; while an attempt runs, when its
      -- lease ends (a replica that died mid-attempt leaves it due again). claim_token names
      -- the attempt that holds the lease, so only that attempt settles the delivery.
      CREATE TABLE webhook_deliveries (
        id bigserial PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        event_id uuid NOT NULL REFERENCES webhook_events (event_id),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts_made integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        claim_token uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT webhook_deliveries_event_endpoint UNIQUE (event_id, endpoint_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (partner_id, endpoint_id, id);

      CREATE TABLE webhook_delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
        status_code integer,
        duration_ms integer NOT NULL,
        error text,
        attempted_at timestamptz NOT NULL
      );
      CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, id);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE webhook_delivery_attempts, webhook_deliveries, webhook_endpoint_secrets, webhook_endpoints;
    `);
  }
}
