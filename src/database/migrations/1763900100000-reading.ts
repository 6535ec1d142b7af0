import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Catalog (per environment: live and sandbox have separate catalogs), reading progress,
 * playback positions, reading activity and the webhook outbox. Subscriber-scoped keys lead
 * with partner_id (DECISIONS 2, 20).
 */
export class Reading1763900100000 implements MigrationInterface {
  name = 'Reading1763900100000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE categories (
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        id text NOT NULL,
        name text NOT NULL,
        sort_order integer NOT NULL,
        PRIMARY KEY (environment, id)
      );
      CREATE TABLE novels (
        environment text NOT NULL CHECK (environment IN ('live', 'sandbox')),
        id text NOT NULL,
        title text NOT NULL,
        synopsis text NOT NULL DEFAULT '',
        author text NOT NULL DEFAULT '',
        category_id text NOT NULL,
        tags text[] NOT NULL DEFAULT '{}',
        language text NOT NULL,
        cover_url text,
        status text NOT NULL CHECK (status IN ('published', 'removed')),
        total_chapters integer NOT NULL DEFAULT 0,
        has_audio boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (environment, id),
        FOREIGN KEY (environment, category_id) REFERENCES categories (environment, id)
      );
      CREATE INDEX novels_published_by_title ON novels (environment, title, id) WHERE status = 'published';
      CREATE INDEX novels_tags ON novels USING gin (tags);
      CREATE TABLE chapters (
        environment text NOT NULL,
        novel_id text NOT NULL,
        number integer NOT NULL CHECK (number >= 1),
        title text NOT NULL,
        body text NOT NULL,
        duration_seconds integer NOT NULL,
        audio_status text NOT NULL DEFAULT 'pending' CHECK (audio_status IN ('pending', 'rendering', 'ready', 'failed')),
        audio_key text,
        audio_bytes bigint,
        audio_duration_seconds integer,
        audio_bitrate_kbps integer,
        PRIMARY KEY (environment, novel_id, number),
        FOREIGN KEY (environment, novel_id) REFERENCES novels (environment, id) ON DELETE CASCADE
      );
      CREATE TABLE endings (
        environment text NOT NULL,
        novel_id text NOT NULL,
        choice_id text NOT NULL,
        label text NOT NULL,
        ending text NOT NULL,
        sort_order integer NOT NULL,
        PRIMARY KEY (environment, novel_id, choice_id),
        FOREIGN KEY (environment, novel_id) REFERENCES novels (environment, id) ON DELETE CASCADE
      );

      CREATE TABLE novel_progress (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        started_at timestamptz NOT NULL,
        current_chapter integer NOT NULL DEFAULT 1,
        finished_at timestamptz,
        chosen_choice_id text,
        PRIMARY KEY (partner_id, environment, subscriber_id, novel_id)
      );
      CREATE INDEX novel_progress_started ON novel_progress (partner_id, environment, started_at);
      CREATE INDEX novel_progress_finished ON novel_progress (partner_id, environment, finished_at) WHERE finished_at IS NOT NULL;

      CREATE TABLE playback_positions (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL,
        position_seconds integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (partner_id, environment, subscriber_id, novel_id)
      );

      CREATE TABLE reading_activity (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('text', 'audio')),
        occurred_at timestamptz NOT NULL
      );
      CREATE INDEX reading_activity_period
        ON reading_activity (partner_id, environment, occurred_at) INCLUDE (subscriber_id, novel_id, chapter_number);

      CREATE TABLE webhook_events (
        event_id uuid PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_events_partner ON webhook_events (partner_id, environment, created_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TABLE webhook_events, reading_activity, playback_positions, novel_progress, endings, chapters, novels, categories;
    `);
  }
}
