import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log of issued stream URLs (DECISIONS 11): partner, client, subscriber, novel,
 * chapter, issue and expiry times. The key and the index lead with partner_id
 * (DECISIONS 20); rows are only ever appended.
 */
export class StreamUrlAudit1763900500000 implements MigrationInterface {
  name = 'StreamUrlAudit1763900500000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE stream_url_issues (
        partner_id uuid NOT NULL,
        id bigserial NOT NULL,
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        client_id text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL CHECK (chapter_number >= 1),
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL CHECK (expires_at > issued_at),
        PRIMARY KEY (partner_id, id)
      );
      CREATE INDEX stream_url_issues_by_subscriber
        ON stream_url_issues (partner_id, environment, subscriber_id, issued_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE stream_url_issues;`);
  }
}
