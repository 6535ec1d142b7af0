import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Partners, credentials, signing keys, plan mappings and entitlements (DECISIONS 2, 3, 6). */
export class Platform1763900000000 implements MigrationInterface {
  name = 'Platform1763900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE partners (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE credentials (
        client_id text PRIMARY KEY,
        partner_id uuid NOT NULL REFERENCES partners (id),
        secret_hash bytea NOT NULL,
        scopes text[] NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      );
      CREATE INDEX credentials_partner ON credentials (partner_id);
      CREATE TABLE signing_keys (
        kid text PRIMARY KEY,
        issuer text NOT NULL CHECK (issuer IN ('platform', 'kids')),
        public_jwk jsonb NOT NULL,
        sealed_private_key text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        signs_from timestamptz NOT NULL
      );
      CREATE INDEX signing_keys_issuer ON signing_keys (issuer, signs_from);
      CREATE TABLE plan_mappings (
        partner_id uuid NOT NULL REFERENCES partners (id),
        partner_plan text NOT NULL,
        internal_plan text NOT NULL,
        PRIMARY KEY (partner_id, partner_plan)
      );
      CREATE TABLE entitlements (
        partner_id uuid NOT NULL REFERENCES partners (id),
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        subscriber_id text NOT NULL,
        product text NOT NULL CHECK (product IN ('textapp', 'audioapp', 'kidsapp')),
        status text NOT NULL CHECK (status IN ('active', 'suspended', 'canceled')),
        partner_plan text,
        internal_plan text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (partner_id, environment, subscriber_id, product)
      );
      CREATE INDEX entitlements_active_by_product
        ON entitlements (partner_id, environment, product) WHERE status = 'active';
      CREATE TABLE entitlement_history (
        id bigserial PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        product text NOT NULL,
        old_status text,
        new_status text NOT NULL,
        partner_plan text,
        internal_plan text NOT NULL,
        changed_by text NOT NULL,
        changed_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      CREATE INDEX entitlement_history_subscriber
        ON entitlement_history (partner_id, environment, subscriber_id, product, id);
      CREATE INDEX entitlement_history_product_time
        ON entitlement_history (partner_id, environment, product, changed_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE entitlement_history, entitlements, plan_mappings, signing_keys, credentials, partners;
    `);
  }
}
