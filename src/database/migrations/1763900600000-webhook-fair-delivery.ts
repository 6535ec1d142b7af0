import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair and safe webhook delivery (DECISIONS 27).
 * - An index for the fair claim, which looks up each partner and environment's earliest
 *   due deliveries and counts its live leases (leading with partner_id, DECISIONS 20).
 * - The attempt log keeps only a failure category: raw socket errors logged before are
 *   rewritten to theirs, and nothing else can be written again. Non-2xx answers, logged
 *   before without an error, get theirs.
 */
export class WebhookFairDelivery1763900600000 implements MigrationInterface {
  name = 'WebhookFairDelivery1763900600000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE INDEX webhook_deliveries_tenant_due ON webhook_deliveries (partner_id, environment, next_attempt_at) WHERE status = 'pending';
      UPDATE webhook_delivery_attempts SET error = CASE
          WHEN status_code IS NOT NULL THEN CASE WHEN status_code BETWEEN 200 AND 299 THEN NULL ELSE 'http_status' END
          WHEN error LIKE 'timed out%' THEN 'timeout'
          WHEN error ~ '(ENOTFOUND|EAI_AGAIN|EAI_FAIL|ENODATA)' THEN 'dns'
          WHEN error ~* '(certificate|CERT_|TLS|SSL|EPROTO)' THEN 'tls'
          ELSE 'connection_refused'
        END;
      ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_error_check
        CHECK (error IN ('timeout', 'connection_refused', 'tls', 'dns', 'http_status'));
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_error_check;
      DROP INDEX webhook_deliveries_tenant_due;
    `);
  }
}
