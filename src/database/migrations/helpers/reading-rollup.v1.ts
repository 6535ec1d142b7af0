/**
 * Version 1 of the reading-rollup trigger's text, shared by migrations 1763900400000 and
 * 1763900900000. Frozen like the migrations that use it (test/architecture/landed-migrations.spec.ts):
 * a change to the rollup is a new migration with a new version of this file. The current text
 * of the function lives in analytics' infrastructure (analytics.database.sql).
 */

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

export const READER_KEY = ['partner_id', 'environment', 'subscriber_id'];
export const CHAPTER_KEY = [...READER_KEY, 'novel_id', 'chapter_number'];

/**
 * The two statements that roll the activity rows of `source` up into `table`, keyed by
 * `key` and the UTC day. The second sees what the first inserted (a new snapshot per
 * statement), which is what makes them correct for a batch holding several days of one key.
 */
export function rollUp(table: string, key: string[], source: string): string {
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
