import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rollups of reading activity that let the engagement report (DECISIONS 14, 20) count
 * distinct readers and distinct chapters over any period without de-duplicating raw
 * events:
 *
 * - `reading_reader_days`: one row per (partner, environment, subscriber, UTC day) with
 *   activity;
 * - `reading_chapter_days`: one row per (partner, environment, subscriber, novel, chapter,
 *   UTC day) with activity.
 *
 * Each row also holds `previous_day`, the key's latest earlier day with activity
 * (`-infinity` when none). A key is active in [start, end] exactly when it has a row in
 * that range whose `previous_day` is before `start`, and only one such row: so a distinct
 * count over a period is a plain count of index entries, with no sort and no hash table.
 *
 * A statement-level trigger keeps both in step with every insert into `reading_activity`
 * (the activity recorder, bulk loads, fixtures), in the writer's transaction. Writers of
 * one subscriber take turns on advisory locks so that concurrent writes of adjacent days
 * still chain exactly; activity arriving out of order re-links the later days it precedes.
 */
export class ReadingRollup1763900400000 implements MigrationInterface {
  name = 'ReadingRollup1763900400000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE reading_reader_days (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        day date NOT NULL,
        previous_day date NOT NULL,
        PRIMARY KEY (partner_id, environment, subscriber_id, day)
      );
      CREATE INDEX reading_reader_days_period ON reading_reader_days (partner_id, environment, day) INCLUDE (previous_day);

      CREATE TABLE reading_chapter_days (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL,
        day date NOT NULL,
        previous_day date NOT NULL,
        PRIMARY KEY (partner_id, environment, subscriber_id, novel_id, chapter_number, day)
      );
      CREATE INDEX reading_chapter_days_period ON reading_chapter_days (partner_id, environment, day) INCLUDE (previous_day);

      ${rollUpFunction({ skipWhenRolledUp: false })}

      CREATE TRIGGER reading_activity_roll_up
        AFTER INSERT ON reading_activity
        REFERENCING NEW TABLE AS new_activity
        FOR EACH STATEMENT EXECUTE FUNCTION reading_activity_roll_up();

      -- Activity recorded before this migration.
      ${rollUp('reading_reader_days', READER_KEY, 'reading_activity')}
      ${rollUp('reading_chapter_days', CHAPTER_KEY, 'reading_activity')}
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER reading_activity_roll_up ON reading_activity;
      DROP FUNCTION reading_activity_roll_up();
      DROP TABLE reading_chapter_days, reading_reader_days;
    `);
  }
}

/**
 * Classes of the two-key advisory locks taken by the trigger (a space apart from the
 * single-key locks of migrations and tests): a writer holds its partner's lock shared and
 * its subscribers' locks exclusively; a statement touching more than BULK_SUBSCRIBERS
 * subscribers holds its partners' locks exclusively instead.
 */
const PARTNER_LOCK_CLASS = 7_340_114;
const SUBSCRIBER_LOCK_CLASS = 7_340_115;
const BULK_SUBSCRIBERS = 32;

/**
 * The trigger function. With `skipWhenRolledUp` (migration 1763900900000) a statement whose
 * every (reader, chapter, UTC day) already has its rollup row returns before taking any lock:
 * a visible rollup row was committed with its chain complete by the writer that made it, and
 * a chapter-day row never exists without its reader-day row, so there is nothing to add.
 */
export function rollUpFunction({ skipWhenRolledUp }: { skipWhenRolledUp: boolean }): string {
  const skip = `
        IF NOT EXISTS (
          SELECT FROM new_activity n
           WHERE NOT EXISTS (
             SELECT FROM reading_chapter_days c
              WHERE c.partner_id = n.partner_id AND c.environment = n.environment AND c.subscriber_id = n.subscriber_id
                AND c.novel_id = n.novel_id AND c.chapter_number = n.chapter_number
                AND c.day = (n.occurred_at AT TIME ZONE 'UTC')::date)) THEN
          RETURN NULL;
        END IF;`;
  return `
      CREATE OR REPLACE FUNCTION reading_activity_roll_up() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        bulk boolean;
        lock_key integer;
      BEGIN${skipWhenRolledUp ? skip : ''}
        -- A bulk load locks whole partners rather than exhaust the lock table.
        bulk := (
          SELECT count(*) > ${BULK_SUBSCRIBERS}
          FROM (SELECT DISTINCT partner_id, environment, subscriber_id FROM new_activity LIMIT ${BULK_SUBSCRIBERS + 1}) AS subscribers);
        -- Partners before subscribers, each in one global order: no two writers deadlock.
        FOR lock_key IN SELECT DISTINCT hashtext(partner_id::text || ' ' || environment) FROM new_activity ORDER BY 1 LOOP
          IF bulk THEN
            PERFORM pg_advisory_xact_lock(${PARTNER_LOCK_CLASS}, lock_key);
          ELSE
            PERFORM pg_advisory_xact_lock_shared(${PARTNER_LOCK_CLASS}, lock_key);
          END IF;
        END LOOP;
        IF NOT bulk THEN
          FOR lock_key IN
            SELECT DISTINCT hashtext(partner_id::text || ' ' || environment || ' ' || subscriber_id) FROM new_activity ORDER BY 1
          LOOP
            PERFORM pg_advisory_xact_lock(${SUBSCRIBER_LOCK_CLASS}, lock_key);
          END LOOP;
        END IF;
        ${rollUp('reading_reader_days', READER_KEY, 'new_activity')}
        ${rollUp('reading_chapter_days', CHAPTER_KEY, 'new_activity')}
        RETURN NULL;
      END $$;`;
}

const READER_KEY = ['partner_id', 'environment', 'subscriber_id'];
const CHAPTER_KEY = [...READER_KEY, 'novel_id', 'chapter_number'];

/**
 * The two statements that roll the activity rows of `source` up into `table`, keyed by
 * `key` and the UTC day. The second sees what the first inserted (a new snapshot per
 * statement), which is what makes them correct for a batch holding several days of one key.
 */
function rollUp(table: string, key: string[], source: string): string {
  const columns = key.join(', ');
  const sameKey = (a: string, b: string) => key.map((column) => `${a}.${column} = ${b}.${column}`).join(' AND ');
  const day = `(occurred_at AT TIME ZONE 'UTC')::date`;
  return `
    -- New (key, day) rows, linked to the key's latest earlier day already stored.
    INSERT INTO ${table} (${columns}, day, previous_day)
    SELECT incoming.*, coalesce(
      (SELECT max(earlier.day) FROM ${table} earlier WHERE ${sameKey('earlier', 'incoming')} AND earlier.day < incoming.day),
      '-infinity')
    FROM (SELECT DISTINCT ${columns}, ${day} AS day FROM ${source}) AS incoming
    ORDER BY ${columns}, day
    ON CONFLICT DO NOTHING;

    -- Re-link every later day of the keys touched: the in-batch days the first statement
    -- could not see, and days stored earlier that the new rows now precede.
    UPDATE ${table} AS target SET previous_day = chain.linked_day
    FROM (
      SELECT stored.*, lag(stored.day) OVER (PARTITION BY ${key.map((column) => `stored.${column}`).join(', ')} ORDER BY stored.day) AS linked_day
      FROM (SELECT ${columns}, min(${day}) AS first_day FROM ${source} GROUP BY ${columns}) AS touched
      JOIN ${table} AS stored ON ${sameKey('stored', 'touched')} AND stored.day >= touched.first_day
    ) AS chain
    WHERE ${sameKey('target', 'chain')} AND target.day = chain.day
      AND chain.linked_day IS NOT NULL AND target.previous_day <> chain.linked_day;`;
}
