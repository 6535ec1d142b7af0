import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Entitlement writes are ordered by when they happened at the partner (`effective_at`),
 * not by when they arrive: the record keeps the instant of its last accepted change, and
 * the history keeps every write, stale ones marked (DECISIONS 24). Existing records and
 * changes took effect when they were received.
 */
export class EntitlementOrdering1763900700000 implements MigrationInterface {
  name = 'EntitlementOrdering1763900700000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE entitlements ADD COLUMN effective_at timestamptz;
      UPDATE entitlements SET effective_at = updated_at;
      ALTER TABLE entitlements ALTER COLUMN effective_at SET NOT NULL, ALTER COLUMN effective_at SET DEFAULT clock_timestamp();
      ALTER TABLE entitlement_history
        ADD COLUMN effective_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        ADD COLUMN stale boolean NOT NULL DEFAULT false;
      UPDATE entitlement_history SET effective_at = changed_at;
      DROP INDEX entitlement_history_product_time;
      CREATE INDEX entitlement_history_product_effective
        ON entitlement_history (partner_id, environment, product, effective_at) WHERE NOT stale;
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP INDEX entitlement_history_product_effective;
      CREATE INDEX entitlement_history_product_time ON entitlement_history (partner_id, environment, product, changed_at);
      ALTER TABLE entitlement_history DROP COLUMN stale, DROP COLUMN effective_at;
      ALTER TABLE entitlements DROP COLUMN effective_at;
    `);
  }
}
